package workflows

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/workflows/ledger"
)

// run starts one attempt of a call as a tool activity; when it ends, a
// refusal the repair can answer is re-issued (stage_refusal.go), a
// failure settles the call, and a result is checked (stage_check.go).
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
// the earlier call whose key this one takes (stage_ledger.go).
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
	opts := toolOptions(tool)
	if tool.Limited() && versionOf(ctx, versionToolQueues, 1) >= 1 {
		opts = limitedToolOptions(opts, workflow.GetInfo(ctx).TaskQueueName, tool.Name)
	} else if versionOf(ctx, versionQueueWait, 1) == workflow.DefaultVersion {
		opts = queueBoundToolOptions(opts, tool)
	}
	opts = withSummary(opts, toolSummary(tool.Name, args))
	// The chain's first run id keeps the idempotency keys of a new run that
	// reuses the workflow id (node ids start again at n1) apart from the
	// earlier run's; it is the same across continue-as-new.
	ref := activities.ToolRef{Name: tool.Name}
	if tool.MCP != nil {
		// Only runs with MCP tools name them (none was recorded before
		// they existed), so the requests of every other run are as before.
		ref.MCP, ref.Effect = tool.MCP, tool.Effect
	}
	req := activities.ToolRequest{
		CallID: callID, Tool: ref, Args: args, Chain: p.keyChain(ctx), Agent: r.run.Spec.Agent.Name,
	}
	if tool.RunsLocal() && versionOf(ctx, versionLocalTools, 1) >= 1 {
		return localToolFuture(ctx, &r.guard, tool, opts, req)
	}
	return workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), acts.RunTool, req)
}

// keyChain is what makes the calls' idempotency keys differ between two
// runs that reuse a workflow id: the first run id of the continue-as-new
// chain. Chains started before it existed keep the keys they began with
// (the flag is carried), so an identical call of one chain keeps its key.
func (p *pipeline) keyChain(ctx workflow.Context) string {
	if !p.r.run.ChainKeys {
		return ""
	}
	return workflow.GetInfo(ctx).FirstRunID
}
