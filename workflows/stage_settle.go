package workflows

import (
	"encoding/json"
	"errors"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/workflows/ledger"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// settle records a finished tool call: its node, its tool's breaker, the
// run's last error, and the _outputPath write (last write wins, in
// completion order).
func (p *pipeline) settle(ctx workflow.Context, c *stepCall, tool config.Tool, result json.RawMessage, err error) {
	r := p.r
	c.done = true
	if err != nil {
		c.errText, c.class = errorText(err), failureClass(err)
		r.finishNode(ctx, c.nodeID, nil, c.errText)
		if cancelled(ctx, err) {
			c.class = policies.Canceled // neither the tool's failure nor a loop event
			return
		}
		r.run.LastError = c.errText
		c.class = p.chargeFailure(ctx, tool.Name, c.class)
		return
	}
	p.settleResult(ctx, c, tool, result, true)
}

// chargeFailure counts a failed activity of tool against the tool's
// breaker and answers the class it counted. A refusal by the worker's
// breaker opens the run's too, so its next calls go to the fallback (or
// fail) without an activity, and the decision is this call's result, in
// the history.
func (p *pipeline) chargeFailure(ctx workflow.Context, tool string, class policies.Class) policies.Class {
	r := p.r
	if class == activities.CircuitOpenError && workerBreakerOn(ctx) {
		r.escape().Breaker(tool).Trip(workflow.Now(ctx))
		return policies.Persistent
	}
	r.escape().Breaker(tool).RecordError(workflow.Now(ctx), class)
	return class
}

// settleResult records a call's result: from the tool (ran, which its
// breaker counts) or from the effect ledger.
func (p *pipeline) settleResult(ctx workflow.Context, c *stepCall, tool config.Tool, result json.RawMessage, ran bool) {
	r := p.r
	c.done = true
	r.finishNode(ctx, c.nodeID, result, "")
	if n := r.run.node(c.nodeID); n != nil {
		r.run.Settle(n)
		ledger.Executed(n)
	}
	if c.write != nil {
		if v, derr := decodeJSON(result); derr == nil {
			refs.Write(r.run.State, *c.write, r.stateValue(v))
		}
	}
	if ran {
		r.escape().Breaker(tool.Name).Record(workflow.Now(ctx), true)
		r.run.Outages.End(tool.Name)
		r.run.Outages.End(c.routed.Name) // a fallback served it: the run waits for neither
		c.noOp = r.repeatsItself(ctx, c, tool, result)
	}
}

// failNotRun settles a call the run's life stopped before it ran.
func (p *pipeline) failNotRun(ctx workflow.Context, c *stepCall, why life.NotRun) {
	p.fail(ctx, c, notRunText(why), policies.Canceled)
	p.r.run.noteNotRun(c.nodeID, why)
}

// fail settles a call that will not run, with the reason the model (or the
// graph's edges) will read.
func (p *pipeline) fail(ctx workflow.Context, c *stepCall, why string, class policies.Class) {
	c.errText, c.class, c.done = why, class, true
	p.r.finishNode(ctx, c.nodeID, nil, why)
	if class != policies.Canceled {
		p.r.run.LastError = why
	}
}

// event is a settled call as the loop detector sees it. Free-form calls
// have always been keyed by their node's arguments (the model's own text
// when the call never ran) and graph calls by their resolved arguments;
// recorded histories depend on both, so each keeps its own.
func (c *stepCall) event(run *Run) policies.CallEvent {
	outcome := "ok"
	switch {
	case c.errText != "":
		outcome = string(c.class)
	case c.noOp:
		outcome = string(policies.NoOp)
	}
	if c.where != "" {
		return policies.CallEvent{Where: c.where, Tool: c.tool.Name, Args: c.resolved, Outcome: outcome, Volatile: toolVolatile(run, c.tool.Name)}
	}
	var args json.RawMessage
	if n := run.node(c.nodeID); n != nil {
		args = n.Args
	}
	return policies.CallEvent{Tool: c.name, Args: args, Outcome: outcome, Volatile: toolVolatile(run, c.name)}
}

// failureClass is the class of a tool activity's failure (its application
// error type), or Timeout, or Unclassified.
func failureClass(err error) policies.Class {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return policies.Class(app.Type())
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		return policies.Timeout
	}
	return policies.Unclassified
}

// workerBreakerOn says whether a worker breaker's refusal opens the run's
// breaker: runs recorded before worker breakers never got one. Asked only
// for such a refusal.
func workerBreakerOn(ctx workflow.Context) bool {
	return versionOf(ctx, versionWorkerBreaker, 1) >= 1
}
