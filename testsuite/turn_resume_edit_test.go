package testsuite

import (
	"context"
	"encoding/json"
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

// A conversation that continued as new while it waited for its next
// message (the server suggests it every 150 events) waits again in the
// next generation. An edit of an earlier turn's answer during that wait
// is carried out, in both run shapes on the worker binary and the real
// server: the run answers the edited turn and waits again (gate
// resumed-turn-edit); before, the run failed with "interrupted by an
// edit".
func TestParityOfAnEditWhileAResumedConversationWaits(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells, parityCell{capability: "an edit while a resumed conversation waits", shape: shape, run: func(t *testing.T) { editResumedWait(t, shape) }})
	}
	runParity(t, cells)
}

func editResumedWait(t *testing.T, shape string) {
	s := newBinaryStack(t, conversationParityConfig, map[string]scriptedmodel.Script{"parity": heard})
	first := s.start(workflows.AgentInput{Agent: shape + "-chatter", Task: "hello"})
	run := latestRun{first}
	asked := func(n int) {
		require.Eventually(t, func() bool { return s.model.RequestCount() >= n }, time.Minute, 20*time.Millisecond, "model request %d", n)
	}
	asked(1)
	resumed := ""
	for i := 1; resumed == ""; i++ {
		require.Less(t, i, 60, "the conversation continued as new while it waited")
		sendMessage(t, s, run, fmt.Sprintf("message %d", i))
		asked(i + 1)
		awaitPhase(t, s, run, signals.PhaseAwaitingUser)
		if rid := latestRunID(t, s, first.GetID()); rid != first.GetRunID() && !asksModel(t, s, first.GetID(), rid) {
			resumed = rid // a generation that began waiting
		}
	}
	tr := s.trace(run)
	var requests []signals.Node
	for _, n := range nodesOf(tr, signals.KindRequest) {
		if n.Status == signals.StatusCompleted {
			requests = append(requests, n)
		}
	}
	require.GreaterOrEqual(t, len(requests), 2)
	earlier := requests[len(requests)-2] // the answer of the turn before the last
	res, err := s.edit(first.GetID(), signals.EditRequest{NodeID: earlier.ID,
		Output: json.RawMessage(`{"tool_calls": [{"id": "f1", "name": "final_output", "args": {"heard": "edited", "turns": 0}}]}`)})
	require.NoError(t, err)
	require.NotEmpty(t, res.Invalidated, "the last turn is invalidated")

	got, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"heard": "edited", "turns": 0}`, string(got.Output), "the edited turn is answered, then the run ends idle")
	gen := s.client.GetWorkflow(context.Background(), first.GetID(), resumed)
	require.True(t, hasMarker(t, s, gen, "resumed-turn-edit"))
	recordAndReplay(t, gen, "conversation_resumed_wait_edit_"+strings.ReplaceAll(shape, "-", "_"))
}

// asksModel says whether run rid of the workflow scheduled a model
// request.
func asksModel(t *testing.T, s *stack, workflowID, rid string) bool {
	t.Helper()
	iter := s.client.GetWorkflowHistory(context.Background(), workflowID, rid, false, 0)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		if ev.GetEventType() == enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED && ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == "CallModel" {
			return true
		}
	}
	return false
}
