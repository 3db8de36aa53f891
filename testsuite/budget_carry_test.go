package testsuite

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A run waiting at the budget rung of a model request, flooded with
// signals, continues as new while it waits (version budget-wait: the
// harness has Temporal suggest it after suggestContinueAsNewEvents
// events); the next generation waits at the same budget node, takes a
// person's raise there, and the run completes.
func TestABudgetWaitIsCarriedAcrossContinueAsNewUnderASignalFlood(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "{{MODEL}}", name: counter }
tools:
  - { name: lookup, builtin: echo, parameters: { type: object } }
agents:
  - name: counter
    instructions: Look things up.
    tools: [lookup]
    policies: { escalation: [human, stop], human_timeout: 10m, budget: { model_requests: 2 } }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"counter": counting(2)})
	run := s.start(workflows.AgentInput{Agent: "counter", Task: "look two things up"})
	ctx := context.Background()
	s.awaitPhase(run, signals.PhaseAwaitingHuman)
	b := nodesOf(s.trace(run), signals.KindBudget)
	require.Len(t, b, 1)
	node := b[0].ID
	require.Equal(t, signals.StatusPending, b[0].Status)
	require.Contains(t, string(b[0].Args), `"limit":"model_requests"`)
	require.Len(t, s.model.Requests(), 2, "the third request waits for the budget")

	// The flood: replies nothing waits for, approvals of calls the run
	// does not have, each with a few KiB of reason.
	reason := strings.Repeat("x", 4<<10)
	const flood = 120
	for i := range flood {
		var err error
		if i%2 == 0 {
			err = s.client.SignalWorkflow(ctx, run.GetID(), "", signals.Reply, map[string]any{"text": fmt.Sprint("flood ", i), "reason": reason})
		} else {
			err = s.client.SignalWorkflow(ctx, run.GetID(), "", signals.Approve, map[string]any{"call_id": "n999", "decision": "approve", "reason": reason})
		}
		require.NoError(t, err)
	}
	latest := s.client.GetWorkflow(ctx, run.GetID(), "")
	require.Eventually(t, func() bool {
		v, err := s.client.QueryWorkflow(ctx, run.GetID(), "", signals.QueryStatus)
		var st signals.Status
		return err == nil && v.Get(&st) == nil && st.Generation >= 1 && st.Phase == signals.PhaseAwaitingHuman
	}, 30*time.Second, 100*time.Millisecond, "the waiting run continued as new, and waits again")
	first, err := s.client.DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	require.Equal(t, enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, first.WorkflowExecutionInfo.Status)
	waiting := s.status(latest)
	require.GreaterOrEqual(t, waiting.Generation, 1)
	require.Equal(t, signals.PhaseAwaitingHuman, waiting.Phase)
	b = nodesOf(s.trace(latest), signals.KindBudget)
	require.Len(t, b, 1, "no second budget node")
	require.Equal(t, node, b[0].ID, "the next generation waits at the same budget node")
	require.Equal(t, signals.StatusPending, b[0].Status)
	require.Len(t, s.model.Requests(), 2, "nothing was sent while waiting")

	// A raise, sent to the generation that waits now, is taken there.
	// The flood may have the run continue as new once more.
	var raised signals.BudgetResult
	require.NoError(t, s.updateStarted(latest, signals.Budget,
		signals.BudgetRequest{Audit: signals.Audit{By: "ops", Reason: "one more"}, Raise: &signals.BudgetRaise{ModelRequests: 1}}, &raised))
	require.Equal(t, node, raised.NodeID, "the raise settles the carried node")

	res, err := s.result(latest)
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	require.JSONEq(t, `{"looked_up": 2}`, string(res.Output))
	require.GreaterOrEqual(t, res.Generation, 1)
	require.EqualValues(t, 3, res.Spend.ModelRequests)
	require.EqualValues(t, 3, res.Spend.Limits["model_requests"])
	b = nodesOf(s.trace(latest), signals.KindBudget)
	require.Len(t, b, 1)
	require.Equal(t, node, b[0].ID)
	require.Equal(t, signals.StatusCompleted, b[0].Status)
	require.Contains(t, string(b[0].Output), `"by":"ops"`)

	// The generation that waited first, and the one that carried the wait
	// (its first task waits again at the same node).
	recordAndReplay(t, run, "budget_wait_carried_gen0")
	last := lastEvent(t, s, run.GetID(), run.GetRunID())
	next := last.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
	require.NotEmpty(t, next)
	recordAndReplay(t, s.client.GetWorkflow(ctx, run.GetID(), next), "budget_wait_carried_gen1")
}
