package testsuite

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// An edit of an earlier turn of a conversation, in both run shapes, on
// the worker binary and the real server: the edited node's turn is the
// one under way again (gate turn-edit), so the run answers it again from
// the edited node and waits for the next message; the later turn and its
// message are invalidated. A fork from that turn (same gate) leaves its
// source's wait behind: it answers the edited turn, then waits for its
// own next message.

func TestParityOfTurnEdit(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells,
			parityCell{capability: "edit of an earlier turn", shape: shape, run: func(t *testing.T) { editFirstTurn(t, shape) }},
			parityCell{capability: "fork of an earlier turn", shape: shape, run: func(t *testing.T) { forkFirstTurn(t, shape) }},
		)
	}
	runParity(t, cells)
}

// searchEachMessage (a test double) searches for each user message, then
// answers it with what it heard and what the search found.
func searchEachMessage(req openaiRequest) scriptedmodel.Turn {
	last := -1
	for i, m := range req.Messages {
		if m.Role == "user" {
			last = i
		}
	}
	for _, m := range req.Messages[last+1:] {
		if m.Role == "tool" {
			var found any
			if json.Unmarshal([]byte(m.Content), &found) != nil {
				found = m.Content
			}
			return finalOutput(map[string]any{"heard": req.Messages[last].Content, "found": found})
		}
	}
	return scriptedmodel.CallTurn("search", map[string]any{"q": req.Messages[last].Content})
}

// editFirstTurn: two turns, each searching (UA1) and answering; while the
// run waits for a third message, a person corrects the first turn's
// search (AF9). Its history is recorded: the gen0 that took the edit
// holds the turn-edit marker.
func editFirstTurn(t *testing.T, shape string) {
	s, tools, first := twoTurnsWaiting(t, shape)
	run := latestRun{first}
	before := s.trace(run)
	search := callsOf(before, "search")[0]
	second := messageNode(t, before, "and Rome?")
	res, err := s.edit(run.GetID(), signals.EditRequest{NodeID: search.ID, Output: json.RawMessage(`{"flight": "AF9"}`)})
	require.NoError(t, err)
	require.Equal(t, 1, res.Generation)
	require.Contains(t, res.Invalidated, second.ID, "the later turn's message is invalidated")

	// The first turn is answered again (only the next generation holds
	// AF9), then the run waits for the next message.
	awaitEditedAnswer(t, s, run)

	require.Len(t, tools.requests("/search"), 2, "one search per turn: the edited one is not run again")
	for _, m := range lastRequest(s).Messages {
		require.NotEqual(t, "and Rome?", m.Content, "the invalidated message is not read again")
	}
	requireVersionMarker(t, first, "turn-edit")
	recordAndReplay(t, first, historyName("turn_edit", shape))
}

// twoTurnsWaiting starts a conversation whose two turns each search (UA1)
// and answer, and waits until it waits for its third message.
func twoTurnsWaiting(t *testing.T, shape string) (*stack, *toolServer, client.WorkflowRun) {
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		writeJSON(w, 200, map[string]string{"flight": "UA1"})
	})
	s := newBinaryStack(t, doubleTextConfig(config.DoubleTextEnqueue, tools.URL), map[string]scriptedmodel.Script{"chatter": searchEachMessage})
	first := s.start(workflows.AgentInput{Agent: shape + "-chatter", Task: "find a flight"})
	run := latestRun{first}
	awaitOutputs(t, s, run, 1)
	awaitPhase(t, s, run, signals.PhaseAwaitingUser)
	sendMessage(t, s, run, "and Rome?")
	awaitOutputs(t, s, run, 2)
	awaitPhase(t, s, run, signals.PhaseAwaitingUser)
	return s, tools, first
}

// forkFirstTurn: the same two turns; while the source waits for a third
// message, a person forks it from the first turn's search, corrected
// (AF9). The fork leaves the source's wait behind (gate turn-edit): it
// answers the first turn from AF9, then waits for its own message. The
// source is left as it was. The fork's history is recorded: its first
// run, which applied the edit, holds the turn-edit marker.
func forkFirstTurn(t *testing.T, shape string) {
	s, tools, first := twoTurnsWaiting(t, shape)
	run := latestRun{first}
	before := s.trace(run)
	search := callsOf(before, "search")[0]
	res, err := s.edit(run.GetID(), signals.EditRequest{NodeID: search.ID, Output: json.RawMessage(`{"flight": "AF9"}`), Fork: true})
	require.NoError(t, err)
	require.Equal(t, run.GetID()+"-fork-"+res.NodeID, res.WorkflowID)
	require.Equal(t, 0, res.Generation, "the source stays in its generation")

	// The fork's first run, pinned: the marker is recorded where the edit
	// was applied, whatever generations follow.
	desc, err := s.client.DescribeWorkflowExecution(context.Background(), res.WorkflowID, "")
	require.NoError(t, err)
	forkRun := s.client.GetWorkflow(context.Background(), res.WorkflowID, desc.GetWorkflowExecutionInfo().GetFirstRunId())
	fork := latestRun{forkRun}
	awaitEditedAnswer(t, s, fork)
	second := messageNode(t, before, "and Rome?")
	for _, n := range s.trace(fork).Nodes {
		require.NotEqual(t, second.ID, n.ID, "the source's later message is not the fork's")
	}

	// The source: still waiting, its answers as they were.
	require.Equal(t, signals.PhaseAwaitingUser, s.status(run).Phase)
	require.Equal(t, validOutputsOf(before), validOutputsOf(s.trace(run)))
	require.Len(t, tools.requests("/search"), 2, "one search per source turn: the fork searches nothing")
	for _, m := range lastRequest(s).Messages {
		require.NotEqual(t, "and Rome?", m.Content, "the fork's model request does not read the source's later turn")
	}
	requireVersionMarker(t, forkRun, "turn-edit")
	recordAndReplay(t, forkRun, historyName("turn_fork", shape))
}

// awaitEditedAnswer waits until the run's one standing answer is the
// first turn's, from the edited search (AF9), and the run then waits for
// its next message.
func awaitEditedAnswer(t *testing.T, s *stack, run latestRun) {
	t.Helper()
	var outs []json.RawMessage
	require.Eventually(t, func() bool {
		outs = validOutputsOf(s.trace(run))
		return len(outs) == 1 && strings.Contains(string(outs[0]), "AF9")
	}, time.Minute, 100*time.Millisecond, "the first turn answered from the edited search")
	require.JSONEq(t, `{"heard": "find a flight", "found": {"flight": "AF9"}}`, string(outs[0]))
	awaitPhase(t, s, run, signals.PhaseAwaitingUser)
}

// validOutputsOf are the outputs of a trace that still stand.
func validOutputsOf(tr signals.Trace) []json.RawMessage {
	var out []json.RawMessage
	for _, n := range nodesOf(tr, signals.KindOutput) {
		if n.Status == signals.StatusCompleted {
			out = append(out, n.Output)
		}
	}
	return out
}
