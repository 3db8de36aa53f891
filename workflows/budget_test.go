package workflows

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/budget"
)

func ptr(v int64) *int64 { return &v }

// budgetSpec is echoSpec with a budget and a ladder.
func budgetSpec(b config.Budget, ladder ...string) *config.Resolved {
	spec := echoSpec()
	spec.Agent.Policies.Budget = &b
	spec.Agent.Policies.Escalation = ladder
	return spec
}

// calls answers n replies, each one call of tool a with new arguments
// (no loop), then done.
func distinctCalls(n int, usage activities.ModelReply) []activities.ModelReply {
	var out []activities.ModelReply
	for i := range n {
		r := usage
		r.ToolCalls = []activities.ToolCall{call(fmt.Sprintf("k%d", i), "a", fmt.Sprintf(`{"i": %d}`, i))}
		out = append(out, r)
	}
	return append(out, activities.ModelReply{Content: "done"})
}

func budgetNodes(tr signals.Trace) []signals.Node { return nodesByKind(tr, signals.KindBudget) }

// Without a human rung, the run stops before the request that would
// cross the limit, with the spend in its report.
func TestABudgetStopsBeforeTheRequestThatWouldCrossIt(t *testing.T) {
	h := newHarness(t, budgetSpec(config.Budget{ModelRequests: ptr(2)}, "retry", "stop"), distinctCalls(5, activities.ModelReply{InputTokens: 100, OutputTokens: 10}), echoTool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	rep := stopReport(t, err)
	require.Len(t, h.requests, 2, "the third request was never sent")
	require.Contains(t, rep.Reason, "budget: the budget's model_requests would be crossed: 2 spent, 1 more needed, limit 2")
	require.NotNil(t, rep.Spend)
	require.Equal(t, int64(2), rep.Spend.ModelRequests)
	require.Equal(t, int64(200), rep.Spend.InputTokens)
	require.Equal(t, int64(2), rep.Spend.ToolCalls)
	require.Equal(t, int64(2), rep.Spend.ByAgent["agent"].ModelRequests)
	b := budgetNodes(h.trace())
	require.Len(t, b, 1)
	require.Equal(t, signals.StatusFailed, b[0].Status)
	require.Contains(t, b[0].Error, "no human rung")
}

// With a human rung, the run waits at the budget rung; a raise of a limit
// the budget does not have is refused, a raise of its own lets it go on.
func TestAPersonRaisesTheBudgetAndTheRunGoesOn(t *testing.T) {
	h := newHarness(t, budgetSpec(config.Budget{ToolCalls: ptr(1)}, "human", "stop"), distinctCalls(3, activities.ModelReply{}), echoTool)
	var wrong, raise updateResult
	h.budgetUpdate(time.Minute, signals.BudgetRequest{Raise: &signals.BudgetRaise{Cost: 5}}, &wrong)
	h.budgetUpdate(2*time.Minute, signals.BudgetRequest{Audit: signals.Audit{By: "ops", Reason: "worth it"}, Raise: &signals.BudgetRaise{ToolCalls: 5}}, &raise)
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, "done", mustJSONString(res.Output))
	require.ErrorContains(t, wrong.rejected, "budget: raise.cost: the run's budget has no such limit to raise")
	require.NoError(t, raise.rejected)
	require.NoError(t, raise.err)
	require.Equal(t, int64(3), res.Spend.ToolCalls)
	require.EqualValues(t, 6, res.Spend.Limits["tool_calls"])
	b := budgetNodes(h.trace())
	require.Len(t, b, 1)
	require.Equal(t, signals.StatusCompleted, b[0].Status)
	require.Contains(t, string(b[0].Output), `"by":"ops"`)
	require.Equal(t, b[0].ID, raise.result.(signals.BudgetResult).NodeID)
}

// No decision within human_timeout stops the run.
func TestNoBudgetDecisionWithinTheHumanTimeoutStops(t *testing.T) {
	spec := budgetSpec(config.Budget{ToolCalls: ptr(1)}, "human", "stop")
	spec.Agent.Policies.HumanTimeout = config.Duration(time.Hour)
	h := newHarness(t, spec, distinctCalls(3, activities.ModelReply{}), echoTool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	rep := stopReport(t, err)
	require.Contains(t, rep.Reason, "no decision within human_timeout (1h0m0s)")
	require.Equal(t, int64(1), rep.Spend.ToolCalls, "the call over the budget never ran")
	require.Len(t, h.toolReqs, 1)
}

// A person may stop the run at the rung.
func TestAPersonStopsTheRunAtItsBudget(t *testing.T) {
	h := newHarness(t, budgetSpec(config.Budget{ToolCalls: ptr(1)}, "human", "stop"), distinctCalls(3, activities.ModelReply{}), echoTool)
	var stop updateResult
	h.budgetUpdate(time.Minute, signals.BudgetRequest{Audit: signals.Audit{By: "ops"}, Stop: true}, &stop)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	rep := stopReport(t, err)
	require.NoError(t, stop.rejected)
	require.Contains(t, rep.Reason, "stopped by ops")
}

// A cost budget counts each request's reply at its bound before it is
// sent, and bounds its prompt: the run stops with its spend under the
// limit.
func TestACostBudgetIsNeverCrossed(t *testing.T) {
	spec := budgetSpec(config.Budget{Cost: &config.CostLimit{Limit: 0.02, Currency: "USD"}}, "stop")
	spec.Pricing = &config.Pricing{Currency: "USD", Models: map[string]config.TokenCost{"scripted:test": {Input: 1_000_000, Output: 2_000_000}}}
	h := newHarness(t, spec, distinctCalls(20, activities.ModelReply{InputTokens: 1000, OutputTokens: 100}), echoTool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	rep := stopReport(t, err)
	// Each request costs 0.0012. Its reply is bound by the model's 4,096
	// tokens (0.008192) until half of what is left is less; then by that
	// half, which the provider is told (max_completion_tokens), down to
	// 256 tokens. Sixteen fit in 0.02, where a reserve that never shrank
	// let ten; the seventeenth's prompt would be over what is left, and is
	// not sent.
	require.Len(t, h.requests, 17)
	require.Equal(t, 256, h.requests[16].MaxTokens)
	require.Equal(t, 288, h.requests[16].SpendTokens)
	require.InDelta(t, 0.0192, rep.Spend.Cost, 1e-12)
	require.Equal(t, "USD", rep.Spend.Currency)
	require.LessOrEqual(t, rep.Spend.Cost, 0.02)
	require.Equal(t, 11808, h.requests[0].SpendTokens, "the prompt's bound: what the cost leaves after the reply's")
	require.Equal(t, 4096, h.requests[0].MaxTokens, "the reply's bound the budget counted is sent")
	require.Equal(t, 3800, h.requests[4].MaxTokens, "half of the 0.0152 left, at 2 per million")
	require.Equal(t, 500, h.requests[15].MaxTokens)
	for i, req := range h.requests[:16] {
		spentBefore := 0.0012 * float64(i)
		reserved := spentBefore + float64(req.MaxTokens)*2e-6 + float64(req.SpendTokens)*1e-6
		require.LessOrEqual(t, reserved, 0.02+1e-12, "request %d: its reply and prompt at their bounds fit the budget", i)
	}
	require.Contains(t, rep.Reason, "budget's cost would be crossed")
}

// A prompt the model activity counted over the budget's bound is not sent:
// the run takes the rung.
func TestAPromptOverTheBudgetIsNotSent(t *testing.T) {
	replies := []activities.ModelReply{
		{InputTokens: 3000, ToolCalls: []activities.ToolCall{call("k1", "a", `{}`)}},
		{OverSpend: &activities.PromptCount{Tokens: 2500, Budget: 2000}},
	}
	h := newHarness(t, budgetSpec(config.Budget{InputTokens: ptr(5000)}, "stop"), replies, echoTool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	rep := stopReport(t, err)
	require.Equal(t, 2000, h.requests[1].SpendTokens)
	require.Contains(t, rep.Reason, "the budget's input_tokens would be crossed: 3000 spent, 2500 more needed, limit 5000")
	require.Equal(t, int64(1), rep.Spend.ModelRequests, "the unsent prompt cost nothing")
}

func (h *harness) budgetUpdate(after time.Duration, req signals.BudgetRequest, got *updateResult) {
	h.env.RegisterDelayedCallback(func() {
		h.env.UpdateWorkflow(signals.Budget, "budget-"+after.String(), &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { got.rejected = err },
			OnAccept:   func() {},
			OnComplete: func(v any, err error) { got.result, got.err = v, err },
		}, req)
	}, after)
}

// A budget decision is taken only while a budget rung waits: one sent
// while the run waits for a person's reply at a loop is refused, not
// kept for later; so is one to a run without a budget.
func TestABudgetDecisionWithoutARungWaitingIsRefused(t *testing.T) {
	for _, withBudget := range []bool{true, false} {
		spec := budgetSpec(config.Budget{ToolCalls: ptr(50)}, "human", "stop")
		if !withBudget {
			spec.Agent.Policies.Budget = nil
		}
		same := call("k", "a", `{"x": 1}`)
		h := newHarness(t, spec, repeat(3, same, activities.ModelReply{Content: "done"}), failingTool)
		var early updateResult
		h.budgetUpdate(time.Minute, signals.BudgetRequest{Raise: &signals.BudgetRaise{ToolCalls: 5}}, &early)
		var reply updateResult
		h.reply(2*time.Minute, "go on", &reply)
		_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
		require.NoError(t, err)
		if withBudget {
			require.ErrorContains(t, early.rejected, "budget: no budget rung waits (the run is awaiting_human): a raise is taken only while the run waits at one")
		} else {
			require.ErrorContains(t, early.rejected, "budget: the run has no budget (its agent agent has no policies.budget)")
		}
		require.NoError(t, reply.rejected)
	}
}

// A fork starts with the spend of the nodes it keeps.
func TestAForkCountsTheSpendOfWhatItKeeps(t *testing.T) {
	run := &Run{Trace: Trace{Nodes: []Node{
		{Node: signals.Node{ID: "n1", Kind: signals.KindRequest, Agent: "a"}, Spent: &policies.Spend{ModelRequests: 1, InputTokens: 100, CostPicos: 7}},
		{Node: signals.Node{ID: "n2", Kind: signals.KindCall, Agent: "a"}, Spent: &policies.Spend{ToolCalls: 1, ToolCallsBy: map[string]int64{"pay": 1}, CostPicos: 3}},
		{Node: signals.Node{ID: "n3", Kind: signals.KindRequest, Agent: "b"}, Spent: &policies.Spend{ModelRequests: 1, OutputTokens: 9}},
		{Node: signals.Node{ID: "n4", Kind: signals.KindCall, Agent: "b"}},
	}}, Spending: budget.Spending{Spend: &policies.Spend{ModelRequests: 99}, Raised: policies.Limits{ToolCalls: 10}}}
	got := forkSpending(run, true)
	require.Equal(t, &policies.Spend{ModelRequests: 2, InputTokens: 100, OutputTokens: 9, ToolCalls: 1, ToolCallsBy: map[string]int64{"pay": 1}, CostPicos: 10}, got.Spend)
	require.Equal(t, int64(1), got.SpendBy["b"].ModelRequests)
	require.Zero(t, got.Raised, "the source's raises are not the fork's")
	require.True(t, got.BornAt.IsZero(), "a new wall time")

	// With the spend of the archived part: through Through by agent, and
	// the invalidated node archived after it.
	run.Archived = &Archive{Through: "n0", Last: "n9",
		Spent:      map[string]*policies.Spend{"a": {ModelRequests: 5, CostPicos: 100}, "c": {ToolCalls: 2}},
		SpentAfter: []NodeSpend{{ID: "n9", Agent: "b", Spent: policies.Spend{ModelRequests: 1}}}}
	got = forkSpending(run, true)
	require.Equal(t, int64(2+5+1), got.Spend.ModelRequests)
	require.Equal(t, int64(110), got.Spend.CostPicos)
	require.Equal(t, int64(6), got.SpendBy["a"].ModelRequests)
	require.Equal(t, int64(2), got.SpendBy["b"].ModelRequests)
	require.Equal(t, int64(2), got.SpendBy["c"].ToolCalls)
	require.Equal(t, int64(2), forkSpending(run, false).Spend.ModelRequests, "runs of an earlier version count the nodes carried only")
}
