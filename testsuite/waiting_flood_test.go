package testsuite

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A run waiting for approval that receives a flood of signals continues
// as new while it waits (the harness has Temporal suggest it after
// suggestContinueAsNewEvents events), still waits for the same call in
// the next generation, and runs it exactly once when a person approves.
func TestWaitingRunContinuesAsNewUnderASignalFlood(t *testing.T) {
	t.Parallel()
	tools := newBookingServer(t, "booked")
	s := bookerStack(t, "approvals", tools.URL)
	run := s.start(workflows.AgentInput{Agent: "booker", Task: "book a seat"})
	ctx := context.Background()
	require.Eventually(t, func() bool { p, _ := s.phase(run); return p == signals.PhaseAwaitingApproval }, 20*time.Second, 100*time.Millisecond)
	callID := s.pendingApproval(run).CallID

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
	var st signals.Status
	require.Eventually(t, func() bool {
		st = signals.Status{}
		v, err := s.client.QueryWorkflow(ctx, run.GetID(), "", signals.QueryStatus)
		return err == nil && v.Get(&st) == nil && st.Generation >= 1 && st.Phase == signals.PhaseAwaitingApproval && len(st.PendingApprovals) == 1
	}, 20*time.Second, 100*time.Millisecond, "the waiting run continued as new")
	require.Equal(t, []signals.PendingApproval{{CallID: callID, Tool: "book", Args: st.PendingApprovals[0].Args, Since: st.PendingApprovals[0].Since}}, st.PendingApprovals,
		"the next generation waits for the same call")
	require.JSONEq(t, `{"seat":"12A"}`, string(st.PendingApprovals[0].Args))
	require.Empty(t, tools.requests("/book"), "nothing runs before the decision")

	first, err := s.client.DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	require.Equal(t, enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, first.WorkflowExecutionInfo.Status)

	// The flood may have the run continue as new once more.
	require.NoError(t, s.updateStarted(latest, signals.Approve, signals.ApproveRequest{CallID: callID, Decision: "approve", Audit: signals.Audit{By: "alice"}}, nil))
	res, err := s.result(latest)
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	require.JSONEq(t, `{"done": true}`, string(res.Output))
	require.GreaterOrEqual(t, res.Generation, 1)
	require.Len(t, tools.requests("/book"), 1, "the approved call ran exactly once")
	tr := s.trace(latest)
	require.Len(t, nodesOf(tr, signals.KindApproval), 1)
	calls := 0
	for _, n := range nodesOf(tr, signals.KindCall) {
		if n.Tool == "book" {
			calls++
			require.Equal(t, callID, n.ID)
			require.Equal(t, signals.StatusCompleted, n.Status)
		}
	}
	require.Equal(t, 1, calls, "one call node, kept across generations")

	recordAndReplay(t, run, "waiting_continue_flood_gen0")
	desc, err := s.client.DescribeWorkflowExecution(ctx, run.GetID(), "")
	require.NoError(t, err)
	recordAndReplay(t, s.client.GetWorkflow(ctx, run.GetID(), desc.WorkflowExecutionInfo.Execution.RunId), "waiting_continue_flood_last")
}
