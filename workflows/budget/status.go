package budget

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// status is status.spend of spend s (the run's, or an agent's), with its
// budget's limits, in people's units; ctx nil: no wall time (a query).
func (b *Budget) status(ctx workflow.Context, s *policies.Spend) *signals.SpendStatus {
	if s == nil {
		return nil
	}
	spec := b.host.Spec()
	out := view(*s, spec.Pricing)
	if spec.Agent.Policies.Budget != nil {
		l := b.limits()
		out.Limits = map[string]any{}
		put := func(name string, v int64) {
			if v > 0 {
				out.Limits[name] = v
			}
		}
		put(policies.LimitInputTokens, l.InputTokens)
		put(policies.LimitOutputTokens, l.OutputTokens)
		put(policies.LimitModelRequests, l.ModelRequests)
		put(policies.LimitToolCalls, l.ToolCalls)
		if len(l.ToolCallsBy) > 0 {
			out.Limits["tool_calls_per_tool"] = l.ToolCallsBy
		}
		if l.CostPicos > 0 {
			out.Limits[policies.LimitCost] = config.Amount(l.CostPicos)
		}
		if l.WallTime > 0 {
			out.Limits[policies.LimitWallTime] = l.WallTime.String()
		}
	}
	if ctx != nil && !b.spent.BornAt.IsZero() {
		out.WallTime = workflow.Now(ctx).Sub(b.spent.BornAt).Round(time.Second).String()
	}
	return &out
}

// Spent is status.spend: the run's spend with each agent's share (nil
// before the run spent anything), its wall time as of seenAt (the run's
// latest change shown).
func (b *Budget) Spent(seenAt time.Time) *signals.SpendStatus {
	out := b.status(nil, b.spent.Spend)
	if out == nil {
		return nil
	}
	pricing := b.host.Spec().Pricing
	// Building a map: the order does not matter.
	//workflowcheck:ignore
	for agent, s := range b.spent.SpendBy {
		if out.ByAgent == nil {
			out.ByAgent = map[string]signals.SpendStatus{}
		}
		out.ByAgent[agent] = view(*s, pricing)
	}
	if !b.spent.BornAt.IsZero() && seenAt.After(b.spent.BornAt) {
		out.WallTime = seenAt.Sub(b.spent.BornAt).Round(time.Second).String()
	}
	return out
}

// view is a spend in people's units.
func view(s policies.Spend, pricing *config.Pricing) signals.SpendStatus {
	out := signals.SpendStatus{
		InputTokens: s.InputTokens, OutputTokens: s.OutputTokens, ModelRequests: s.ModelRequests,
		ToolCalls: s.ToolCalls, ToolCallsBy: s.ToolCallsBy, Estimated: s.Estimated,
	}
	if pricing != nil {
		out.Cost, out.Currency = config.Amount(s.CostPicos), pricing.Currency
	}
	return out
}
