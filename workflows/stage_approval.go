package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
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
