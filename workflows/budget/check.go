package budget

import (
	"errors"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/workflows/person"
)

// defaultReplyTokens bounds a reply whose model's max_output_tokens is
// unknown, for the budget's estimate of a request.
const defaultReplyTokens = 4096

// budgeted says whether the run has a budget to keep (GateBudget, asked
// only for runs whose agent has one).
func (b *Budget) budgeted(ctx workflow.Context) bool {
	return b.host.Spec().Agent.Policies.Budget != nil && b.host.Gate(ctx, GateBudget)
}

// limits are the run's budget: its agent's, with the raises.
func (b *Budget) limits() policies.Limits {
	return policies.LimitsOf(b.host.Spec().Agent.Policies.Budget, b.spent.Raised)
}

// requestAsk is what the budget counts of the next model request before
// it is sent: its reply at the model's bound, at the model's price.
func (b *Budget) requestAsk(maxTokens int) policies.RequestAsk {
	reply := int64(maxTokens)
	if reply == 0 {
		if _, output, known := b.model().Window(); known {
			reply = int64(output)
		} else {
			reply = defaultReplyTokens
		}
	}
	return policies.RequestAsk{ReplyTokens: reply, Price: b.modelPrice()}
}

// BeforeRequest takes the budget rung while the next model request would
// cross a limit, and answers the most tokens its prompt may take and the
// bound its reply is sent with (0: no bound), or the stop. maxTokens is
// the request's own reply bound (a longer reply), if any.
func (b *Budget) BeforeRequest(ctx workflow.Context, reqID string, maxTokens int) (prompt, reply int, err error) {
	err = b.check(ctx, reqID, true, func() *policies.Crossing {
		cross, room, bound := b.requestFits(ctx, maxTokens)
		prompt, reply = int(room), int(bound)
		return cross
	})
	if err != nil {
		return 0, 0, err
	}
	return prompt, reply, nil
}

// requestFits is what the budget says of the next model request: the
// limit it would cross, else the most tokens its prompt may take and the
// bound its reply is sent with (0: none). maxTokens is the request's own
// reply bound (a longer reply), kept as it is.
func (b *Budget) requestFits(ctx workflow.Context, maxTokens int) (cross *policies.Crossing, prompt, reply int64) {
	all, _ := b.spending()
	l := b.limits()
	ask := b.requestAsk(maxTokens)
	if maxTokens == 0 && (l.OutputTokens > 0 || l.CostPicos > 0) {
		ask.ReplyTokens = b.replyRoom(ctx, l, *all, ask)
		reply = ask.ReplyTokens
	}
	cross, prompt = policies.BeforeRequest(l, *all, ask, b.elapsed(ctx))
	return cross, prompt, reply
}

// replyRoom is the bound a request of a run with an output_tokens or cost
// budget is sent with: the budget counts each reply at its bound, which
// holds only when the provider is told it. Telling it the model's own
// bound changes only the request, not what the run decides; shrinking it
// to what the budget has left (policies.ReplyRoom) changes when the
// budget is crossed, so it is asked of GateReplyBound, and only then: a
// budget that never binds records no marker.
func (b *Budget) replyRoom(ctx workflow.Context, l policies.Limits, spent policies.Spend, ask policies.RequestAsk) int64 {
	room := policies.ReplyRoom(l, spent, ask)
	if room == ask.ReplyTokens || !b.host.Gate(ctx, GateReplyBound) {
		return ask.ReplyTokens
	}
	return room
}

// Beside is the budget of a model request beside the conversation (a
// summary, a repair): the most tokens its prompt may take (0: no bound),
// or why it is not asked. Such a request takes no budget rung: over the
// budget it is not asked, and the run goes on without it.
func (b *Budget) Beside(ctx workflow.Context) (prompt int, over string) {
	if b.hold.stop != nil {
		return 0, b.hold.stop.Error()
	}
	if !b.budgeted(ctx) {
		return 0, ""
	}
	// Counted as the request it stands beside: a check at the model's
	// whole reply bound would refuse a summary the request itself needs.
	cross, allow, _ := b.requestFits(ctx, 0)
	if cross != nil {
		return 0, cross.Why()
	}
	return int(allow), ""
}

// OverPrompt takes the budget rung for a prompt the model activity
// counted over the budget's bound and did not send.
func (b *Budget) OverPrompt(ctx workflow.Context, reqID string, maxTokens int, over activities.PromptCount) error {
	all, _ := b.spending()
	return b.rung(ctx, reqID, true, policies.PromptCrossing(b.limits(), *all, b.requestAsk(maxTokens), int64(over.Tokens)))
}

// BeforeCall takes the budget rung while a call of tool would cross a
// limit; nil once it fits.
func (b *Budget) BeforeCall(ctx workflow.Context, nodeID, tool string) error {
	return b.check(ctx, nodeID, false, func() *policies.Crossing {
		all, _ := b.spending()
		return policies.BeforeCall(b.limits(), *all, tool, b.toolPrice(tool), b.elapsed(ctx))
	})
}

// check takes the budget rung (for node nodeID) while crossing answers a
// limit crossed, and answers nil once nothing is: the budget was raised
// enough. carry: the wait may continue as new with the run (a request's).
// A stop is kept, so no later request or call of the run goes on; an
// edit's interruption or a wait carried into the next generation (the
// host's Paused errors) is not a stop.
func (b *Budget) check(ctx workflow.Context, nodeID string, carry bool, crossing func() *policies.Crossing) error {
	if b.hold.stop != nil {
		return b.hold.stop
	}
	if !b.budgeted(ctx) {
		return nil
	}
	for {
		err := b.takeHeldDecision(ctx)
		if err == nil {
			cross := crossing()
			if cross == nil {
				return nil
			}
			err = b.rung(ctx, nodeID, carry, *cross)
		}
		if err == nil {
			continue
		}
		if !errors.Is(err, b.host.Paused(person.Interrupted)) && !errors.Is(err, b.host.Paused(person.Switching)) {
			b.hold.stop = err
		}
		return err
	}
}

// Born starts the run's wall time, if it has not started: at the start of
// its first generation.
func (b *Budget) Born(ctx workflow.Context) {
	if b.spent.BornAt.IsZero() {
		b.spent.BornAt = workflow.GetInfo(ctx).WorkflowStartTime
	}
}

// elapsed is the run's wall time so far.
func (b *Budget) elapsed(ctx workflow.Context) time.Duration {
	b.Born(ctx)
	return workflow.Now(ctx).Sub(b.spent.BornAt)
}

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
