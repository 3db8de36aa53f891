package workflows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A budget rung's wait: only a raise of the crossed limit lands, an edit
// ends the wait at once, and a run that continues as new while it waits
// waits again at the same node.

// A raise must raise the limit the run crossed; a tool's own limit is
// raised by tool_calls_per_tool.
func TestARaiseMustRaiseTheCrossedLimit(t *testing.T) {
	b := config.Budget{ToolCalls: ptr(10), ToolCallsPerTool: map[string]int64{"a": 1}}
	h := newHarness(t, budgetSpec(b, "human", "stop"), distinctCalls(2, activities.ModelReply{}), echoTool)
	var other, unknown, raise updateResult
	h.budgetUpdate(time.Minute, signals.BudgetRequest{Raise: &signals.BudgetRaise{ToolCalls: 5}}, &other)
	h.budgetUpdate(2*time.Minute, signals.BudgetRequest{Raise: &signals.BudgetRaise{ToolCallsPerTool: map[string]int64{"b": 5}}}, &unknown)
	h.budgetUpdate(3*time.Minute, signals.BudgetRequest{Raise: &signals.BudgetRaise{ToolCallsPerTool: map[string]int64{"a": 1}}}, &raise)
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	require.ErrorContains(t, other.rejected, "the budget's tool_calls_per_tool.a would be crossed: 1 spent, 1 more needed, limit 1: a raise must raise tool_calls_per_tool.a")
	require.ErrorContains(t, unknown.rejected, "budget: raise.tool_calls_per_tool.b: the run's budget has no such limit to raise")
	require.NoError(t, raise.rejected)
	require.Equal(t, int64(2), res.Spend.ToolCallsBy["a"])
	require.EqualValues(t, 2, res.Spend.Limits["tool_calls_per_tool"].(map[string]any)["a"])
}

// An edit sent while the run waits at its budget rung ends the wait: the
// run applies it at once instead of after the person's timeout.
func TestAnEditEndsABudgetWait(t *testing.T) {
	spec := budgetSpec(config.Budget{ToolCalls: ptr(1)}, "human", "stop")
	spec.Agent.Policies.HumanTimeout = config.Duration(time.Hour)
	h := newHarness(t, spec, distinctCalls(3, activities.ModelReply{}), echoTool)
	var edited updateResult
	h.edit(time.Minute, signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"v": "new"}`), Audit: signals.Audit{By: "bob"}}, &edited)
	start := h.env.Now()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, edited.rejected)
	require.NoError(t, edited.err)
	next := continuedInput(t, h)
	var budget *Node
	for i := range next.Continued.Nodes {
		if n := &next.Continued.Nodes[i]; n.Kind == signals.KindBudget {
			budget = n
		}
	}
	require.NotNil(t, budget)
	require.Equal(t, signals.StatusInvalidated, budget.Status, "after the edited node")
	require.Equal(t, "not decided: a person edited the run while it waited", budget.Error)
	require.Less(t, h.env.Now().Sub(start), time.Hour, "the wait ended with the edit, not at the timeout")
}

// A run waiting at the budget rung of a model request continues as new
// when Temporal suggests it; the next generation waits at the same node
// and takes the raise there.
func TestABudgetWaitBeforeARequestIsCarriedAcrossContinueAsNew(t *testing.T) {
	spec := func() *config.Resolved { return budgetSpec(config.Budget{ModelRequests: ptr(1)}, "human", "stop") }
	h := newHarness(t, spec(), distinctCalls(1, activities.ModelReply{}), echoTool)
	h.suggestWhileWaiting()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "t"})
	next := continuedInput(t, h)
	run := next.Continued
	node := carriedBudgetNode(t, run)
	require.Equal(t, signals.PhaseAwaitingHuman, run.Phase)
	require.Len(t, h.requests, 1)

	h2 := newHarness(t, spec(), distinctCalls(1, activities.ModelReply{})[1:], echoTool)
	var raise updateResult
	h2.budgetUpdate(time.Minute, signals.BudgetRequest{Raise: &signals.BudgetRaise{ModelRequests: 1}}, &raise)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, raise.rejected)
	require.Equal(t, node, raise.result.(signals.BudgetResult).NodeID, "the raise settles the carried node")
	require.Equal(t, "completed", string(res.Status))
	require.Len(t, budgetNodes(h2.trace()), 1, "no second budget node")
}

// A call's budget wait stays in its generation (the step's calls, and
// the approvals already decided for them, are not carried): when Temporal
// suggests continuing as new, the wait goes on, and the raise lands there.
func TestABudgetWaitBeforeACallStaysInItsGeneration(t *testing.T) {
	h := newHarness(t, budgetSpec(config.Budget{ToolCalls: ptr(1)}, "human", "stop"), distinctCalls(2, activities.ModelReply{}), echoTool)
	h.suggestWhileWaiting()
	var raise updateResult
	h.budgetUpdate(2*time.Minute, signals.BudgetRequest{Raise: &signals.BudgetRaise{ToolCalls: 1}}, &raise)
	_, _ = h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, raise.rejected)
	require.Len(t, h.toolReqs, 2, "the call ran in this generation, after the raise")
	// Then, at its next step, the run continues as new as suggested.
	next := continuedInput(t, h)
	require.Nil(t, next.Continued.Resume, "no wait carried")
	var b *Node
	for i := range next.Continued.Nodes {
		if n := &next.Continued.Nodes[i]; n.Kind == signals.KindBudget {
			b = n
		}
	}
	require.NotNil(t, b)
	require.Equal(t, signals.StatusCompleted, b.Status)
	require.Equal(t, b.ID, raise.result.(signals.BudgetResult).NodeID)
}

// A decision that reached a carried budget wait is carried out when the
// next generation starts, even when the limit it meets first is another
// one (wall time grows while a person decides).
func TestADecisionSentToACarriedWaitIsTaken(t *testing.T) {
	spec := func() *config.Resolved { return budgetSpec(config.Budget{ModelRequests: ptr(1)}, "human", "stop") }
	h := newHarness(t, spec(), distinctCalls(1, activities.ModelReply{}), echoTool)
	h.suggestWhileWaiting()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "t"})
	next := continuedInput(t, h)
	carried := next.Continued.Resume.Waiting.Budget
	require.NotNil(t, carried)
	carried.Decision = &signals.BudgetRequest{Audit: signals.Audit{By: "ops"}, Stop: true} // as accepted between generations

	h2 := newHarness(t, spec(), distinctCalls(1, activities.ModelReply{})[1:], echoTool)
	_, err := h2.run(next)
	rep := stopReport(t, err)
	require.Contains(t, rep.Reason, "stopped by ops")
	b := budgetNodes(h2.trace())
	require.Len(t, b, 1, "the carried node took the decision; no new rung")
	require.Equal(t, carried.Node, b[0].ID)
	require.Contains(t, string(b[0].Output), `"stop":true`)
	require.Len(t, h2.requests, 0, "nothing more was asked")
}

// A wait carried for a prompt the model activity counted over the budget
// is not dropped by the next check, which cannot see the prompt: the
// request meets the same limit and waits at the same node.
func TestAPromptWaitCarriedKeepsItsNode(t *testing.T) {
	spec := func() *config.Resolved { return budgetSpec(config.Budget{InputTokens: ptr(5000)}, "human", "stop") }
	replies := []activities.ModelReply{
		{InputTokens: 3000, ToolCalls: []activities.ToolCall{call("k1", "a", `{}`)}},
		{OverSpend: &activities.PromptCount{Tokens: 2500, Budget: 2000}},
	}
	h := newHarness(t, spec(), replies, echoTool)
	h.suggestWhileWaiting()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "t"})
	next := continuedInput(t, h)
	carried := next.Continued.Resume.Waiting.Budget
	require.NotNil(t, carried)

	h2 := newHarness(t, spec(), []activities.ModelReply{{OverSpend: &activities.PromptCount{Tokens: 2500, Budget: 2000}}, {Content: "done"}}, echoTool)
	var raise updateResult
	h2.budgetUpdate(time.Minute, signals.BudgetRequest{Raise: &signals.BudgetRaise{InputTokens: 5000}}, &raise)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, raise.rejected)
	require.Equal(t, carried.Node, raise.result.(signals.BudgetResult).NodeID, "the same node, with its deadline")
	require.Equal(t, "completed", string(res.Status))
	require.Len(t, budgetNodes(h2.trace()), 1)
}
