package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

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
