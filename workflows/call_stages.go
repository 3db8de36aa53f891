package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/ledger"
	"github.com/unstuck-dev/unstuck/workflows/life"
	"github.com/unstuck-dev/unstuck/workflows/person"
)

// approval holds a call of tool for a person's decision (package person)
// in a coroutine of its own, so the step's other calls go on. What the
// person decided is checked again against the blocked calls, then goes to
// next: routing, or (for a fallback that needed its own approval) the
// ledger.
func (p *pipeline) approval(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, next func(config.Tool, json.RawMessage)) {
	if n := p.r.run.node(c.nodeID); n != nil {
		n.Args = args
	}
	var outcome person.Outcome
	var waitErr error
	p.async(ctx, func(g workflow.Context) {
		outcome, waitErr = p.r.person().AwaitApproval(g, c.nodeID, tool.Name)
	}, func() {
		if waitErr != nil {
			p.fail(ctx, c, errorText(waitErr), policies.Canceled)
			return
		}
		if outcome.Held {
			c.held, c.done = true, true
			return
		}
		if outcome.Interrupted {
			p.failNotRun(ctx, c, p.r.life.Stops())
			return
		}
		if n := p.r.run.node(c.nodeID); n != nil {
			args = n.Args // a person may have edited them while the call waited
		}
		tool, decided, problem := p.r.person().Decide(ctx, c.nodeID, tool, args, outcome)
		if problem != "" {
			p.fail(ctx, c, problem, policies.Refused)
			return
		}
		if isBlocked(p.r.run, tool.Name, decided) {
			p.fail(ctx, c, blockedText(tool.Name), policies.Blocked)
			return
		}
		p.r.edit().MarkEditedArgs(c.nodeID, tool.Name, decided)
		c.resolved = decided
		next(tool, decided)
	})
}

// asks decides whether call c of tool (the call's own, or a fallback
// serving it) waits for a person with these arguments
// (policies.ApprovalAsks): a condition (approval: {when}) is evaluated
// over the arguments, State and input, with its cost bound, and the call's
// node notes how it came out.
func (p *pipeline) asks(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage) bool {
	a := tool.Approval
	if !a.Conditional() {
		return a.Always()
	}
	if versionOf(ctx, versionApprovalWhen, 1) == workflow.DefaultVersion {
		return false
	}
	r := p.r
	argMap, _ := policies.ExprValue(args).(map[string]any)
	d := r.exprs.asks(a, config.ApprovalEnv{Args: argMap, State: r.run.State, Input: r.inputMap()})
	if n := r.run.node(c.nodeID); n != nil {
		n.Note = d.Note
		if tool.Name != c.tool.Name {
			n.Note = fmt.Sprintf("fallback %s: %s", tool.Name, d.Note)
		}
	}
	return d.Ask
}

// asks decides whether approval a asks a person in env
// (policies.ApprovalAsks): its condition evaluated with its cost bound, a
// condition that cannot be evaluated asking.
func (cs conditions) asks(a config.Approval, env config.ApprovalEnv) policies.ApprovalDecision {
	o := cs.evaluate(exprKey{approval: true, text: a.When}, env)
	err := o.compileErr
	if err == nil {
		err = o.runErr
	}
	return policies.ApprovalAsks(a, o.held, err)
}

// route applies the circuit breakers (policies.RouteCall): a tool whose
// breaker is open is replaced by its fallback, or the call is not made.
// A fallback that needs an approval of its own (for these arguments:
// asks) runs only once a person approves it.
func (p *pipeline) route(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage) {
	r := p.r
	c.routed = tool
	now := workflow.Now(ctx)
	lookup := func(name string) (policies.RouteTool, bool) {
		t, ok := r.run.Spec.Tool(name)
		return policies.RouteTool{Name: t.Name, Fallback: t.Fallback, NeedsApproval: t.Approval.MayAsk()}, ok
	}
	allow := func(name string) bool { return r.escape().Breaker(name).Allow(now) }
	failures := func(name string) int { return r.escape().Breaker(name).Failures }
	routed := policies.RouteCall(tool.Name, lookup, allow, failures)
	if routed.Refusal != "" {
		p.refused(ctx, c, tool, args, routed.Refusal)
		return
	}
	if routed.Tool != tool.Name {
		fallback, _ := r.run.Spec.Tool(routed.Tool)
		c.fallback = fallback.Name
		if routed.NeedsApproval && p.asks(ctx, c, fallback, args) {
			p.approval(ctx, c, fallback, args, func(t config.Tool, decided json.RawMessage) { p.ledger(ctx, c, t, decided) })
			return
		}
		tool = fallback
	}
	p.ledger(ctx, c, tool, args)
}

// An outage is not a loop. A call whose tool is down (every breaker on
// its way open, or the worker's breaker refusing it, or a transient
// failure that leaves the tool's breaker open) parks: it waits on a
// durable timer until the breaker lets a trial through (policies.NextProbe,
// spread so runs do not probe at once), in phase waiting_outage, and is
// routed again. It feeds no loop event and climbs no rung while it waits;
// past outage.max_wait in all it fails as it did before, and the ladder
// climbs. An edit or a cancellation ends the wait as it ends any other.

// refused settles a call every breaker on its way refused: it waits the
// outage out, or fails as circuit_open.
func (p *pipeline) refused(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, refusal string) {
	status, waited, ok := p.outageWait(ctx, c, tool, *p.r.escape().Breaker(tool.Name))
	if ok {
		p.park(ctx, c, status, func() { p.route(ctx, c, tool, args) })
		return
	}
	p.fail(ctx, c, refusal+waited, policies.CircuitOpen)
}

// parkAfter routes again a call whose tool activity failed in a way that
// says the tool is down: its breaker open once the failure is counted (or
// the worker's refusing it), so a fallback serves it or it parks. It
// answers false, counting nothing, for any other failure: the call
// settles as it did.
func (p *pipeline) parkAfter(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, err error) bool {
	class := failureClass(err)
	workerRefused := class == activities.CircuitOpenError
	if cancelled(ctx, err) || !policies.OutageParks(class, workerRefused, tool.Effect == config.EffectWrite) {
		return false
	}
	if workerRefused && !workerBreakerOn(ctx) {
		return false
	}
	// The breaker as it is once the failure is counted (the worker's
	// refusal opens it): still closed, the model hears of the failure.
	b := *p.r.escape().Breaker(tool.Name)
	if workerRefused {
		b.Trip(workflow.Now(ctx))
	} else {
		b.RecordError(workflow.Now(ctx), class)
	}
	if b.State == policies.BreakerClosed {
		return false
	}
	if _, _, ok := p.outageWait(ctx, c, tool, b); !ok {
		return false // settled as the failure it is
	}
	p.chargeFailure(ctx, tool.Name, class)
	p.r.run.LastError = errorText(err)
	// Routed again at once: a fallback whose breaker is closed serves it
	// now; with none, every breaker on the way refuses and it parks.
	p.route(ctx, c, c.routed, args)
	return true
}

// outageWait says whether call c of tool, whose breaker is b, waits the
// outage out (ok), and until when (status); when it does not because the
// run waited outage.max_wait, what the call's error adds (waited).
func (p *pipeline) outageWait(ctx workflow.Context, c *stepCall, tool config.Tool, b policies.Breaker) (status signals.OutageStatus, waited string, ok bool) {
	if versionOf(ctx, versionOutageWait, 1) < 1 {
		return status, "", false
	}
	return p.r.outages().status(ctx, c.nodeID, tool.Name, b, p.r.run.Spec.Agent.Policies.OutageWait(tool))
}

// park waits the outage out until status.NextProbe, in a coroutine of
// its own so the step's other calls go on, then calls again (or settles
// the call when an edit or a cancellation came first).
func (p *pipeline) park(ctx workflow.Context, c *stepCall, status signals.OutageStatus, again func()) {
	r := p.r
	if !c.waited {
		c.waited = true
		r.count(ctx, MetricOutageWaits, 1, "tool", status.Of)
	}
	r.outages().park(ctx, c.nodeID, status)
	var end awaitEnd
	p.async(ctx, func(g workflow.Context) {
		end = r.outages().await(g, status)
	}, func() {
		if end != carried {
			r.outages().unpark(ctx, c.nodeID, c.routed.Name)
		}
		switch end {
		case edited:
			p.failNotRun(ctx, c, r.life.Stops())
		case cancelledWait:
			p.fail(ctx, c, "not run: the run was cancelled while it waited out an outage of "+status.Of, policies.Canceled)
		case carried:
			// Left pending and parked, so the switch carries it: the next
			// generation routes it again, and it waits on from the
			// outage's start (Run.Outages).
			if n := r.run.node(c.nodeID); n != nil {
				n.Status = signals.StatusPending
			}
		default:
			again()
		}
	})
}

// ledger is the stage of the effect ledger (package ledger): every call
// that ran is in the trace with its tool, arguments and result. A write
// re-issued after an edit (or a rollback) invalidated the call that made
// it, or after a message cut the turn that made it short (interrupt), is
// not run twice: the recorded result answers it (the tool's reexecute: reuse, the default),
// or a person decides (reexecute: ask). Reads run again; an idempotent
// tool runs again with the same Idempotency-Key (its key is made of the
// tool and its canonical arguments), so the tool itself answers. A
// write whose latest try failed its check is asked for again through
// again, with the check's stage below.
func (p *pipeline) ledger(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage) {
	if !writes(c, tool) {
		p.run(ctx, c, tool, args, 0)
		return
	}
	// Matched by the tool the call names: a fallback that stood in for it
	// then, or stands in now, does not make the same write a new one.
	name := ledgerName(c, tool)
	prior := p.effects.ExecutedWrite(ctx, name, args)
	if prior == nil {
		if u := p.effects.UnverifiedWrite(name, args); u != nil {
			p.again(ctx, c, tool, args, u)
			return
		}
		// The same write tried before and failed (a timeout, say) may have
		// acted all the same: it goes again with that try's key, so a tool
		// that honours Idempotency-Key acts once.
		if tried := p.effects.TriedWrite(name, args); tried != nil {
			c.keyOf = ledger.KeyOf(tried)
		}
		p.run(ctx, c, tool, args, 0)
		return
	}
	if tool.Reexecute == config.ReexecuteAsk {
		p.askReexecute(ctx, c, tool, args, prior)
		return
	}
	p.reuse(ctx, c, tool, args, prior.ID, prior.Output)
}

// ledgerAnswers says whether the ledger will answer this call without a
// person's approval of the call itself: a write that already ran, re-issued
// as it was (reexecute: reuse answers it; ask asks about running it again,
// once). Approving it first would ask for nothing.
func (p *pipeline) ledgerAnswers(ctx workflow.Context, c *stepCall, args json.RawMessage) bool {
	return writes(c, c.tool) && p.effects.ExecutedWrite(ctx, ledgerName(c, c.tool), args) != nil
}

// writes: the call's tool, or the tool that would stand in, has effects.
func writes(c *stepCall, tool config.Tool) bool {
	return tool.Effect == config.EffectWrite || c.tool.Effect == config.EffectWrite
}

// ledgerName is the tool a call is matched by in the ledger: the one the
// call names.
func ledgerName(c *stepCall, tool config.Tool) string {
	if c.tool.Name != "" {
		return c.tool.Name
	}
	return tool.Name
}

// reuse answers a re-issued write with what it returned when it ran (the
// node priorID, whose result is output).
func (p *pipeline) reuse(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, priorID string, output json.RawMessage) {
	if n := p.r.run.node(c.nodeID); n != nil {
		n.Args = args
	}
	p.effects.Reused(c.nodeID, priorID)
	c.resolved = args
	p.settleResult(ctx, c, tool, output, false)
}

// askReexecute holds a re-issued write for a person: approve (or modify,
// replace) runs it again; reject, or no decision within human_timeout,
// answers it with the recorded result, so nothing runs twice unasked.
func (p *pipeline) askReexecute(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, prior *Node) {
	priorID := prior.ID
	if n := p.r.run.node(c.nodeID); n != nil {
		n.Args = args
		n.Error = fmt.Sprintf("this exact write already ran as %s: approve runs it again, reject answers it with the recorded result", priorID)
	}
	var outcome person.Outcome
	var waitErr error
	p.async(ctx, func(g workflow.Context) {
		outcome, waitErr = p.r.person().AwaitApproval(g, c.nodeID, tool.Name)
	}, func() {
		if n := p.r.run.node(c.nodeID); n != nil {
			n.Error = ""
		}
		switch {
		case waitErr != nil:
			p.fail(ctx, c, errorText(waitErr), policies.Canceled)
		case outcome.Interrupted:
			p.failNotRun(ctx, c, p.r.life.Stops())
		case outcome.TimedOut || outcome.Decision.Decision == signals.DecisionReject:
			decision := "timeout"
			if !outcome.TimedOut {
				decision = signals.DecisionReject
			}
			p.r.addNode(ctx, Node{Node: signals.Node{
				Kind: signals.KindApproval, Status: signals.StatusCompleted, Parents: []string{c.nodeID}, Tool: tool.Name,
				Output: mustJSON(map[string]any{"decision": decision, "reused_from": priorID}),
			}, Step: p.r.run.Step})
			if prior := p.r.run.node(priorID); prior != nil {
				p.reuse(ctx, c, tool, args, prior.ID, prior.Output)
			}
		default:
			if n := p.r.run.node(c.nodeID); n != nil {
				args = n.Args
			}
			tool, decided, problem := p.r.person().Decide(ctx, c.nodeID, tool, args, outcome)
			if problem != "" {
				p.fail(ctx, c, problem, policies.Refused)
				return
			}
			c.resolved = decided
			p.effects.AnsweredFor(priorID) // a person had it run again
			p.run(ctx, c, tool, decided, 0)
		}
	})
}

// run starts one attempt of a call as a tool activity; when it ends, a
// refusal the repair can answer is re-issued (refusal), a
// failure settles the call, and a result is checked (check).
func (p *pipeline) run(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, attempt int) {
	if p.r.life.Interrupting() {
		p.failNotRun(ctx, c, p.r.life.Stops())
		return
	}
	if p.inFlight >= p.r.run.Spec.Agent.Policies.Limits.InFlight() {
		// A running call starts it when it ends (below).
		p.queued = append(p.queued, func() { p.run(ctx, c, tool, args, attempt) })
		return
	}
	if err := p.budget.BeforeCall(ctx, c.nodeID, tool.Name); err != nil {
		switch {
		case errors.Is(err, errInterrupted):
			p.failNotRun(ctx, c, p.r.life.Stops())
		default:
			p.fail(ctx, c, "not run: the run stopped at its budget", policies.Canceled)
		}
		return
	}
	p.budget.SpendCall(ctx, c.nodeID, tool.Name)
	p.running++
	p.inFlight++
	p.r.servedBy(c, tool.Name)
	p.sel.AddFuture(p.toolFuture(ctx, c.nodeID, c.keyOf, attempt, tool, args), func(f workflow.Future) {
		p.running--
		p.inFlight--
		if len(p.queued) > 0 {
			next := p.queued[0]
			p.queued = p.queued[1:]
			next()
		}
		var result json.RawMessage
		err := f.Get(ctx, &result)
		if p.canRepairRefusal(ctx, c.nodeID, tool, args, err) {
			p.refusal(ctx, c, tool, args, attempt, err)
			return
		}
		if err != nil {
			if p.parkAfter(ctx, c, tool, args, err) {
				return
			}
			p.settle(ctx, c, tool, nil, err)
			return
		}
		p.check(ctx, c, tool, args, result)
	})
}

// toolFuture starts a tool activity with the tool's timeout and retry
// policy. It names the tool; the activity finds where it lives in the
// worker's config. attempt > 0 is a repaired re-issue: it gets its own call
// id, so its idempotency key differs from the refused call's. The request
// carries the chain (the first run id) for the key. keyOf, when set, is
// the earlier call whose key this one takes (ledger).
func (p *pipeline) toolFuture(ctx workflow.Context, nodeID, keyOf string, attempt int, tool config.Tool, args json.RawMessage) workflow.Future {
	r := p.r
	// A fallback serving the call is named on the node (fallback.go);
	// blocking and loops go by the tool the call named.
	callID := nodeID
	if keyOf != "" {
		callID = keyOf
	}
	if attempt > 0 {
		callID = fmt.Sprintf("%s-r%d", callID, attempt)
	}
	if n := r.run.Running(nodeID, workflow.Now(ctx)); n != nil {
		n.Args = args
		ledger.Ran(n, callID)
	}
	opts, info := toolOptions(tool), workflow.GetInfo(ctx)
	if tool.Limited() && versionOf(ctx, versionToolQueues, 1) >= 1 {
		// A limited tool's call goes to the tool's own task queue, where the
		// worker's per-tool worker applies max_concurrent and rate. A call
		// may wait there as long as the limits make it: that is not a
		// failure, so its attempts have no schedule-to-close bound (which
		// counts the wait); each attempt keeps its start-to-close timeout
		// and the retry policy its attempts.
		opts.TaskQueue = config.ToolTaskQueue(info.TaskQueueName, tool.Name)
	} else if versionOf(ctx, versionQueueWait, 1) == workflow.DefaultVersion {
		opts = queueBoundToolOptions(opts, tool)
	}
	opts = withSummary(opts, toolSummary(tool.Name, args))
	// The chain's first run id keeps the idempotency keys of a new run that
	// reuses the workflow id (node ids start again at n1) apart from the
	// earlier run's; it is the same across continue-as-new. Chains started
	// before it existed keep the keys they began with (the flag is
	// carried), so an identical call of one chain keeps its key.
	chain := ""
	if r.run.ChainKeys {
		chain = info.FirstRunID
	}
	ref := activities.ToolRef{Name: tool.Name}
	if tool.MCP != nil {
		// Only runs with MCP tools name them (none was recorded before
		// they existed), so the requests of every other run are as before.
		ref.MCP, ref.Effect = tool.MCP, tool.Effect
	}
	req := activities.ToolRequest{
		CallID: callID, Tool: ref, Args: args, Chain: chain, Agent: r.run.Spec.Agent.Name,
	}
	if tool.RunsLocal() && versionOf(ctx, versionLocalTools, 1) >= 1 {
		return localToolFuture(ctx, &r.guard, tool, opts, req)
	}
	return workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), acts.RunTool, req)
}

// Local tools (config.Tool.RunsLocal) run as local activities: in this
// worker, inside the workflow task that decided the call, with no
// activity task for the server to schedule and dispatch and no workflow
// task to take the result. The call is the same RunTool with the same
// request, so its idempotency key is too; the history records its result
// in one marker. A call that still fails or runs past
// config.LocalToolBound goes on as a normal activity, with the tool's
// whole retry policy: a slow or flaky tool is no worse off than before.

// localToolFuture runs a call as a local activity, and as a normal one
// (opts) when the local one ran out of its bound.
func localToolFuture(ctx workflow.Context, guard *runGuard, tool config.Tool, opts workflow.ActivityOptions, req activities.ToolRequest) workflow.Future {
	// Within the bound a local call is retried by the tool's own policy;
	// past it, the normal activity starts the policy again, so a failing
	// call is tried at most twice its max_attempts (and the worker's
	// breaker refuses the tool after 5 failures across runs). A tool that
	// may be tried only once does not go on.
	retry := *opts.RetryPolicy
	once := retry.MaximumAttempts == 1
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		ScheduleToCloseTimeout: config.LocalToolBound.D(),
		StartToCloseTimeout:    tool.LocalTimeout(),
		RetryPolicy:            &retry,
		Summary:                opts.Summary,
	})
	fut, settle := workflow.NewFuture(ctx)
	guard.goGuarded(ctx, "the local call "+req.CallID, func(g workflow.Context) {
		var out json.RawMessage
		err := workflow.ExecuteLocalActivity(lctx, acts.RunTool, req).Get(g, &out)
		if !once && goesOnRemote(err, retry.NonRetryableErrorTypes) {
			err = workflow.ExecuteActivity(workflow.WithActivityOptions(g, opts), acts.RunTool, req).Get(g, &out)
		}
		settle.Set(out, err)
	}, func() { settle.Set(nil, temporal.NewCanceledError("the call's coroutine panicked: the run stops")) })
	return fut
}

// goesOnRemote says a local call's failure is the bound's, not the
// tool's answer: it timed out, or its last error was one a retry may
// mend. A non-retryable error (bad arguments, a fatal class, a result
// too large) is the call's answer, as from a normal activity; so is a
// cancellation.
func goesOnRemote(err error, nonRetryable []string) bool {
	if err == nil {
		return false
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		return true
	}
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) {
		return false
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return !app.NonRetryable() && !slices.Contains(nonRetryable, app.Type())
	}
	return false
}

// refusal answers a tool that refused the arguments (invalid_args): the
// refusal's message is parsed into repairs (or the model is asked) beside
// the other calls, and the call is issued again with arguments it has not
// tried; otherwise the refusal settles the call.
func (p *pipeline) refusal(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, attempt int, refused error) {
	var fixed json.RawMessage
	var ok bool
	p.async(ctx, func(g workflow.Context) {
		fixed, ok = p.r.mend().After(g, c.nodeID, tool, args, errorText(refused))
	}, func() {
		if !ok || p.r.mend().Tried(c.nodeID, fixed) {
			p.settle(ctx, c, tool, nil, refused)
			return
		}
		c.resolved = fixed
		p.run(ctx, c, tool, fixed, attempt+1)
	})
}

// canRepairRefusal says whether a tool's refusal (invalid_args) may be
// answered by repairing and re-issuing the call. Never for a tool that
// may need approval: a person approved those arguments, not repaired
// ones, and repaired ones might meet the condition (approval: {when})
// the call's did not.
func (p *pipeline) canRepairRefusal(ctx workflow.Context, nodeID string, tool config.Tool, args json.RawMessage, err error) bool {
	r := p.r
	if err == nil || cancelled(ctx, err) || failureClass(err) != policies.InvalidArgs {
		return false
	}
	if r.mend().Left(nodeID) <= 0 {
		return false
	}
	if tool.Approval.MayAsk() {
		return false
	}
	r.mend().Tried(nodeID, args)
	return true
}

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

// outcome is how a settled call ended, as the loop detector reads it.
func (c *stepCall) outcome() string {
	switch {
	case c.errText != "":
		return string(c.class)
	case c.noOp:
		return string(policies.NoOp)
	}
	return "ok"
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

// check holds a call its tool answered with success to what the tool
// promises (config.Verify): its result_schema, then its verify, an
// expression or a read-back call. A call that passes settles as it came;
// one that fails settles failed with class unverified and a reason the
// model reads, so a tool that says "ok" and does nothing is caught.
func (p *pipeline) check(ctx workflow.Context, c *stepCall, tool config.Tool, args, result json.RawMessage) {
	if !tool.Checked() || versionOf(ctx, versionCheckedCalls, 1) == workflow.DefaultVersion {
		p.settle(ctx, c, tool, result, nil)
		return
	}
	argv, res := decodedArgs(args), decodedOrNil(result)
	verdict := func(ck signals.Check) { p.verdict(ctx, c, tool, result, ck) }
	if tool.ResultSchema != nil {
		if ck := p.resultSchemaCheck(tool, res); !ck.Passed {
			verdict(ck)
			return
		}
	}
	v := tool.Verify
	switch {
	case v == nil:
		verdict(signals.Check{Kind: signals.CheckResultSchema, Passed: true})
	case v.ReadBack():
		p.readBack(ctx, c, tool, argv, res, verdict)
	default:
		verdict(p.condition(ctx, signals.CheckVerify, "verify", v.Expr, args, result))
	}
}

// verdict settles a checked call as its check says: verified,
// unverified, or unknown when its read-back could not read
// (unknown).
func (p *pipeline) verdict(ctx workflow.Context, c *stepCall, tool config.Tool, result json.RawMessage, ck signals.Check) {
	switch {
	case ck.Passed:
		p.verified(ctx, c, tool, result, ck)
	case ck.Unknown:
		p.unknown(ctx, c, tool, result, ck)
	default:
		p.unverified(ctx, c, tool, result, ck)
	}
}

// verified settles a call that passed its check, the verdict on its node.
func (p *pipeline) verified(ctx workflow.Context, c *stepCall, tool config.Tool, result json.RawMessage, ck signals.Check) {
	p.settle(ctx, c, tool, result, nil)
	if n := p.r.run.node(c.nodeID); n != nil {
		n.Check = &ck
	}
}

// unverified settles a call that failed its check: failed, class
// unverified, what the tool answered kept beside the reason (the
// console shows both, and a write tried again reads it back: ledger).
// Its tool's breaker counts it as a failure.
func (p *pipeline) unverified(ctx workflow.Context, c *stepCall, tool config.Tool, result json.RawMessage, ck signals.Check) {
	r := p.r
	p.checkFailed(ctx, c, result, ck, policies.Unverified)
	r.run.Unverified++
	r.count(ctx, MetricUnverified, 1, "tool", tool.Name, "check", ck.Kind)
	r.escape().Breaker(tool.Name).RecordError(workflow.Now(ctx), c.class)
}

// checkFailed settles c failed as its check says, of class, what the
// tool answered (result) kept beside the reason.
func (p *pipeline) checkFailed(ctx workflow.Context, c *stepCall, result json.RawMessage, ck signals.Check, class policies.Class) {
	r := p.r
	c.done = true
	c.errText, c.class = ck.Reason, class
	r.finishNode(ctx, c.nodeID, nil, c.errText)
	if n := r.run.node(c.nodeID); n != nil {
		n.Output, n.Check = result, &ck
	}
	r.run.LastError = c.errText
}

// readBack calls the tool's read-back with arguments naming the checked
// call's (†args.x, †result.x): a call of its own in the trace (check_of
// names the call it checks), with the read tool's retry policy. Its
// result is held to verify.expect and the verdict handed to then; a
// read-back that could not read, or that the read tool's open breaker
// holds back, hands on an unknown verdict (unknown).
func (p *pipeline) readBack(ctx workflow.Context, c *stepCall, tool config.Tool, args map[string]any, result any, then func(signals.Check)) {
	r, v := p.r, tool.Verify
	failed := func(reason, nodeID string) { then(readBackFailure(v, reason, nodeID)) }
	rbTool, ok := r.run.Spec.Tool(v.Tool)
	if !ok {
		failed(fmt.Sprintf("read-back %s: not a tool of this run", v.Tool), "")
		return
	}
	rbArgs, errs := refs.ResolveCheck(v.Args, args, result)
	if len(errs) > 0 {
		failed(fmt.Sprintf("read-back %s: %v", v.Tool, errs[0]), "")
		return
	}
	if wait := p.readBreakerWait(ctx, v.Tool); wait > 0 {
		p.async(ctx, func(g workflow.Context) { _ = workflow.Sleep(g, wait) }, func() {
			p.readBackCall(ctx, c, tool, v, rbTool, rbArgs, args, then)
		})
		return
	}
	p.readBackCall(ctx, c, tool, v, rbTool, rbArgs, args, then)
}

// readBackCall makes the read-back call, unless its tool's breaker holds
// it back.
func (p *pipeline) readBackCall(ctx workflow.Context, c *stepCall, tool config.Tool, v *config.Verify, rbTool config.Tool, rbArgs any, args map[string]any, then func(signals.Check)) {
	r := p.r
	if why := p.readBreakerHolds(ctx, v.Tool); why != "" {
		then(unknownCheck(v, why, ""))
		return
	}
	raw := mustJSON(rbArgs)
	node := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindCall, Status: signals.StatusPending, Parents: []string{c.nodeID},
		Tool: v.Tool, Args: raw, CheckOf: c.nodeID,
	}, Step: r.run.Step})
	id := node.ID
	p.budget.SpendCall(ctx, id, v.Tool)
	p.running++
	checkedArgs := mustJSON(args)
	p.sel.AddFuture(p.toolFuture(ctx, id, "", 0, rbTool, raw), func(f workflow.Future) {
		p.running--
		var out json.RawMessage
		if err := f.Get(ctx, &out); err != nil {
			r.finishNode(ctx, id, nil, errorText(err))
			if cancelled(ctx, err) {
				p.settle(ctx, c, tool, nil, err) // the run's end, not the call's verdict
				return
			}
			if !policies.ReadBackAnswered(failureClass(err)) && readBackUnknown(ctx) {
				p.chargeFailure(ctx, v.Tool, failureClass(err))
				then(unknownCheck(v, fmt.Sprintf("its read-back %s could not read (%s)", v.Tool, errorText(err)), id))
				return
			}
			then(readBackFailure(v, fmt.Sprintf("read-back %s failed, so the call is not known to have worked: %s", v.Tool, errorText(err)), id))
			return
		}
		r.finishNode(ctx, id, out, "")
		p.readBackRead(ctx, v.Tool)
		what := fmt.Sprintf("read-back %s(%s): expect", v.Tool, raw)
		ck := p.condition(ctx, signals.CheckReadBack, what, v.Expect, checkedArgs, out)
		ck.ReadBack = id
		then(ck)
	})
}

// readBackFailure is the verdict of a read-back that failed for reason
// (nodeID: the read-back's node, if it ran).
func readBackFailure(v *config.Verify, reason, nodeID string) signals.Check {
	return signals.Check{Kind: signals.CheckReadBack, Condition: v.Expect, Reason: reason, ReadBack: nodeID}
}

// resultSchemaCheck holds a result to the tool's result_schema.
func (p *pipeline) resultSchemaCheck(tool config.Tool, result any) signals.Check {
	ck := signals.Check{Kind: signals.CheckResultSchema}
	schema, err := p.r.compiledSchema("result_schema "+tool.Name, "tool "+tool.Name+" result_schema", tool.ResultSchema)
	if err != nil {
		ck.Reason = err.Error()
		return ck
	}
	if err := schema.Validate(result); err != nil {
		ck.Reason = policies.ResultSchemaFailed(result, config.DescribeViolations(err))
		return ck
	}
	ck.Passed = true
	return ck
}

// condition evaluates a check's expression over a call's args and a
// result (numbers compare as numbers: policies.VerifyEnv); one that does
// not hold names the values it read.
func (p *pipeline) condition(ctx workflow.Context, kind, what, condition string, args, result json.RawMessage) signals.Check {
	argv, res := decodedArgs(args), decodedOrNil(result)
	o := p.r.exprs.evaluateGated(ctx, false, condition, policies.VerifyEnv(args, result), config.VerifyEnv{Args: argv, Result: res})
	if o.compileErr != nil {
		return signals.Check{Kind: kind, Condition: condition, Reason: fmt.Sprintf("%s %q does not compile: %v", what, condition, o.compileErr)}
	}
	return policies.ConditionCheck(kind, what, condition, o.prog.Node(), argv, res, o.held, o.runErr)
}

// decodedArgs are a call's arguments as a check reads them (nil when
// they are not an object).
func decodedArgs(args json.RawMessage) map[string]any {
	m, _ := decodedOrNil(args).(map[string]any)
	return m
}

func decodedOrNil(raw json.RawMessage) any {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil
	}
	return v
}

// A read-back that could not read (its tool failed once its retries were
// spent, or its breaker is open) says nothing of the call it checks:
// could not check is not did not happen. The call is held as
// outcome_unknown, a write so held is never run again until a read-back
// can tell (again), and the read tool's breaker counts the
// failure: the checked tool answered, so its own counts none.

// unknownCheck is the verdict of a read-back that could not read, why
// saying what kept it from reading.
func unknownCheck(v *config.Verify, why, readBack string) signals.Check {
	return signals.Check{Kind: signals.CheckReadBack, Condition: v.Expect, Reason: why, ReadBack: readBack, Unknown: true}
}

// unknown settles a checked call whose read-back could not read: failed,
// class outcome_unknown, what the tool answered kept beside the reason.
// The tool served, so its breaker counts a success.
func (p *pipeline) unknown(ctx workflow.Context, c *stepCall, tool config.Tool, result json.RawMessage, ck signals.Check) {
	what, after := "call", ""
	if tool.Effect == config.EffectWrite {
		what, after = "write", " It is not run again while its outcome is unknown: ask for the same call again to check again"
	}
	ck.Reason = fmt.Sprintf("the outcome of the %s is unknown: %s, so whether it took effect is not known.%s", what, ck.Reason, after)
	p.checkFailed(ctx, c, result, ck, policies.OutcomeUnknown)
	p.r.escape().Breaker(tool.Name).Record(workflow.Now(ctx), true)
}

// stillUnknown answers a write asked for again whose earlier try (tryID)
// is held unknown and whose read-back still cannot read: it does not run.
// Its tool's breaker gets back a trial it may have let this call take.
func (p *pipeline) stillUnknown(ctx workflow.Context, c *stepCall, tool config.Tool, tryID string, ck signals.Check) {
	ck.Reason = fmt.Sprintf("not run again: the outcome of %s is still unknown: %s, so whether it took effect is not known. Ask for the same call again to check again", tryID, ck.Reason)
	p.checkFailed(ctx, c, nil, ck, policies.OutcomeUnknown)
	p.r.escape().Breaker(tool.Name).Release()
}

// readBackUnknown says whether a read-back that could not read holds its
// call unknown (read-back-unknown); asked only then.
func readBackUnknown(ctx workflow.Context) bool {
	return versionOf(ctx, versionReadBackUnknown, 1) >= 1
}

// readBreakerWait is how long a read-back waits for its tool's open
// breaker to let a trial through (0: it need not): a read tool that is
// down for a while is read again once, after its cooldown, rather than
// the call held unknown at once.
func (p *pipeline) readBreakerWait(ctx workflow.Context, tool string) time.Duration {
	b := p.r.run.Breakers[tool]
	if b == nil || b.State != policies.BreakerOpen {
		return 0
	}
	left := b.OpenedAt.Add(b.Cooldown).Sub(workflow.Now(ctx))
	if left <= 0 || !readBackUnknown(ctx) {
		return 0
	}
	return left
}

// readBreakerHolds says whether the read tool's breaker keeps a read-back
// from being tried (the why, "" when it does not). A breaker that never
// counted a failure asks nothing.
func (p *pipeline) readBreakerHolds(ctx workflow.Context, tool string) string {
	b := p.r.run.Breakers[tool]
	if b == nil || b.State == policies.BreakerClosed || !readBackUnknown(ctx) || b.Allow(workflow.Now(ctx)) {
		return ""
	}
	return fmt.Sprintf("its read-back %s was not tried: the breaker of %s is open after %d failures", tool, tool, b.Failures)
}

// readBackRead counts a read-back that read as a success of its tool,
// when the tool's breaker has failures to clear (or a trial to settle).
func (p *pipeline) readBackRead(ctx workflow.Context, tool string) {
	b := p.r.run.Breakers[tool]
	if b == nil || (b.Failures == 0 && b.State == policies.BreakerClosed) || !readBackUnknown(ctx) {
		return
	}
	b.Record(workflow.Now(ctx), true)
}

// again is a write whose latest try failed its check
// (ledger.UnverifiedWrite), asked for again. It is never simply run
// again: it takes that try's Idempotency-Key, and
// where the tool has a read-back, the read-back first learns whether the
// try acted after all. If it did, the call is answered with the try's
// result and does not run; if not, the write runs once more; if the
// read-back cannot tell, the call does not run (unknown).
func (p *pipeline) again(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, try *Node) {
	c.keyOf = ledger.KeyOf(try)
	if !tool.Verify.ReadBack() {
		p.run(ctx, c, tool, args, 0)
		return
	}
	tryID, tried := try.ID, try.Output
	p.readBack(ctx, c, tool, decodedArgs(args), decodedOrNil(tried), func(ck signals.Check) {
		switch {
		case ck.Unknown:
			p.stillUnknown(ctx, c, tool, tryID, ck)
			return
		case !ck.Passed:
			p.run(ctx, c, tool, args, 0)
			return
		}
		ck.Reason = fmt.Sprintf("the write of %s took effect after all (its read-back passes now): answered with its result, not run again", tryID)
		if n := p.r.run.node(c.nodeID); n != nil {
			n.Check = &ck
		}
		p.reuse(ctx, c, tool, args, tryID, tried)
	})
}

// repeatsItself says whether a write that just succeeded answered exactly
// as the previous try of the same write did (policies.NoOpRepeat): a tool
// that says "ok" and changes nothing. The loop detector then sees no
// progress (policies.NoOp); the call itself stays a success.
func (r *runner) repeatsItself(ctx workflow.Context, c *stepCall, tool config.Tool, result json.RawMessage) bool {
	if !writes(c, tool) || tool.Repeatable {
		return false
	}
	at := r.run.nodeIndex(c.nodeID)
	if at < 0 {
		return false
	}
	prev := r.ledger().SameWrite(ledgerName(c, tool), r.run.Nodes[at].Args, 0, at, func(m *Node) bool {
		return m.Ran && m.CheckOf == "" && m.Status != signals.StatusInvalidated
	})
	if prev == nil || prev.Status != signals.StatusCompleted || !policies.NoOpRepeat(false, prev.Output, result) {
		return false
	}
	return versionOf(ctx, versionNoOpWrites, 1) >= 1
}
