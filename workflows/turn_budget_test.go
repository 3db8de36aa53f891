package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A conversation's budget (policies.budget) is the run's: it counts every
// turn's spend, across continue-as-new while the run waits for a message,
// and a turn that would cross it takes the budget rung as any step does.

// budgetChat is a conversation of spec with a budget of two model
// requests and ladder. Its first turn is answered, and the run continues
// as new while it waits for the next message; the next generation is
// returned to run.
func budgetChat(t *testing.T, spec *config.Resolved, ladder ...string) (*config.Resolved, AgentInput) {
	spec.Agent.Policies.Budget = &config.Budget{ModelRequests: ptr(2)}
	spec.Agent.Policies.Escalation = ladder
	h := newHarness(t, spec, []activities.ModelReply{finalAnswer("f1", "Where to?")}, okTool)
	h.suggestWhileWaiting()
	_, _ = h.run(AgentInput{Agent: "travel", Task: "book a trip"})
	next := continuedInput(t, h)
	require.Equal(t, int64(1), next.Continued.Spend.ModelRequests, "the first turn's request is carried")
	return spec, next
}

// secondAndThirdTurn runs the generation after budgetChat's: two more
// messages, each a model request, the second over the budget.
func secondAndThirdTurn(t *testing.T, spec *config.Resolved, in AgentInput, setup func(h *harness)) (*harness, *AgentResult, error) {
	h := newHarness(t, spec, []activities.ModelReply{finalAnswer("f2", "Paris it is."), finalAnswer("f3", "And Rome after.")}, okTool)
	var second, third updateResult
	h.message(10*time.Minute, "Paris", &second)
	h.message(20*time.Minute, "then Rome", &third)
	setup(h)
	res, err := h.run(in)
	require.NoError(t, second.rejected)
	require.NoError(t, third.rejected)
	return h, res, err
}

// Without a human rung, the turn that would cross the budget stops the
// run before its request, with the report of what every turn spent.
func TestAConversationStopsAtItsBudgetInALaterTurn(t *testing.T) {
	eachShape(t, config.DoubleTextEnqueue, func(t *testing.T, spec *config.Resolved) {
		spec, next := budgetChat(t, spec, "stop")
		h, _, err := secondAndThirdTurn(t, spec, next, func(*harness) {})
		rep := stopReport(t, err)
		require.Contains(t, rep.Reason, "budget: the budget's model_requests would be crossed: 2 spent, 1 more needed, limit 2")
		require.Equal(t, int64(2), rep.Spend.ModelRequests, "both turns counted, across the generations")
		require.Len(t, h.requests, 1, "the third turn's request was never sent")
		require.Len(t, budgetNodes(h.trace()), 1)
	})
}

// With a human rung, the turn waits for a person's decision; raised, it
// is answered, and the conversation waits for its next message again.
func TestAPersonRaisesAConversationsBudgetInALaterTurn(t *testing.T) {
	eachShape(t, config.DoubleTextEnqueue, func(t *testing.T, spec *config.Resolved) {
		spec, next := budgetChat(t, spec, "human", "stop")
		var atRung, after signals.Status
		var raise updateResult
		h, res, err := secondAndThirdTurn(t, spec, next, func(h *harness) {
			h.env.RegisterDelayedCallback(func() { atRung = h.status() }, 25*time.Minute)
			h.budgetUpdate(30*time.Minute, signals.BudgetRequest{Audit: signals.Audit{By: "ops"}, Raise: &signals.BudgetRaise{ModelRequests: 1}}, &raise)
			h.env.RegisterDelayedCallback(func() { after = h.status() }, 35*time.Minute)
		})
		require.NoError(t, err)
		require.NoError(t, raise.rejected)
		require.Equal(t, signals.PhaseAwaitingHuman, atRung.Phase, "the third turn waits at the budget rung")
		require.Equal(t, signals.PhaseAwaitingUser, after.Phase, "answered, it waits for the next message")
		require.JSONEq(t, `{"answer": "And Rome after."}`, string(res.Output))
		require.Equal(t, int64(3), res.Spend.ModelRequests)
		require.EqualValues(t, 3, res.Spend.Limits["model_requests"])
		require.Len(t, h.requests, 2)
		b := budgetNodes(h.trace())
		require.Len(t, b, 1)
		require.Equal(t, signals.StatusCompleted, b[0].Status)
	})
}
