package budget

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// Metrics the budget counts (the run's tags beside them).
const (
	// MetricSpendModelRequests, MetricSpendToolCalls (tag tool) and
	// MetricSpendCost (millionths of the currency; tag currency) count
	// what runs spend (policies.budget); the run counts tokens itself.
	MetricSpendModelRequests = "unstuck_spend_model_requests"
	MetricSpendToolCalls     = "unstuck_spend_tool_calls"
	MetricSpendCost          = "unstuck_spend_cost_micros"
	// MetricBudgetRungs counts budget rungs taken; tags limit and outcome
	// (raised, stopped, timeout, no_human, interrupted, carried).
	MetricBudgetRungs = "unstuck_budget_rungs"
)

// SpendTokens counts a model request's tokens (a reply's, a summary's, a
// repair's) on node nodeID, at the price of the model the run asks now.
func (b *Budget) SpendTokens(ctx workflow.Context, nodeID string, input, output int, estimated bool) {
	spend := policies.Reply{InputTokens: int64(input), OutputTokens: int64(output), Estimated: estimated, Price: b.modelPrice()}
	b.host.Count(ctx, MetricSpendModelRequests, 1)
	b.countCost(ctx, spend.InputTokens*spend.Price.Input+spend.OutputTokens*spend.Price.Output)
	b.spendOn(nodeID, func(s *policies.Spend) { s.AddReply(spend) })
}

// SpendCall counts a call made to tool, on the call's node too.
func (b *Budget) SpendCall(ctx workflow.Context, nodeID, tool string) {
	price := b.toolPrice(tool)
	b.host.Count(ctx, MetricSpendToolCalls, 1, "tool", tool)
	b.countCost(ctx, price)
	b.spendOn(nodeID, func(s *policies.Spend) { s.AddCall(tool, price) })
}

// spendOn adds a spend to the run's, its agent's share and node
// nodeID's, the three places a spend is kept.
func (b *Budget) spendOn(nodeID string, add func(*policies.Spend)) {
	all, agent := b.spending()
	add(all)
	add(agent)
	if n := b.host.NodeSpend(nodeID); n != nil {
		add(n)
	}
}

// spending is the run's spend, created on first use; the agent's share is
// counted beside it.
func (b *Budget) spending() (*policies.Spend, *policies.Spend) {
	return b.spent.of(b.host.Spec().Agent.Name)
}

// countCost counts a cost in millionths of the prices' currency.
func (b *Budget) countCost(ctx workflow.Context, picos int64) {
	if p := b.host.Spec().Pricing; p != nil && picos > 0 {
		b.host.Count(ctx, MetricSpendCost, (picos+500_000)/1_000_000, "currency", p.Currency)
	}
}

// model is the model the run asks now.
func (b *Budget) model() config.Model {
	return b.host.Spec().Model.At(b.host.ModelAt())
}

// modelPrice is the price per token of the model the run asks now.
func (b *Budget) modelPrice() config.TokenCost {
	if p := b.host.Spec().Pricing; p != nil {
		return p.Models[b.model().Name]
	}
	return config.TokenCost{}
}

func (b *Budget) toolPrice(tool string) int64 {
	if p := b.host.Spec().Pricing; p != nil {
		return p.Tools[tool]
	}
	return 0
}
