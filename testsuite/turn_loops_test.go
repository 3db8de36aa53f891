package testsuite

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A person asking the same thing each turn of a conversation, answered by
// the same call each time, is no loop (gate turn-loops), in both run
// shapes, on the worker binary and the real server: eight turns of "check
// my balance" run their eight searches and meet no loop. A turn that goes
// round on its own still is one: the ninth, searching three times the
// same way, is answered by the ladder's bottom rung. The histories of the
// first generation and the last are recorded.

const (
	checkBalance = "check my balance"
	checkThrice  = "check it three times"
)

func TestParityOfTurnLoops(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells, parityCell{capability: "a repeated request is no loop", shape: shape, run: func(t *testing.T) { repeatRequest(t, shape) }})
	}
	runParity(t, cells)
}

// checksEachMessage (a test double) searches as the person's latest
// message asks, once or three times the same way, then answers with what
// it found.
func checksEachMessage(req openaiRequest) scriptedmodel.Turn {
	last := 0
	for i, m := range req.Messages {
		if m.Role == "user" && (m.Content == checkBalance || m.Content == checkThrice) {
			last = i
		}
	}
	found := ""
	searches := 0
	for _, m := range req.Messages[last+1:] {
		if m.Role == "tool" {
			found, searches = m.Content, searches+1
		}
	}
	want := 1
	if req.Messages[last].Content == checkThrice {
		want = 3
	}
	if searches < want {
		return scriptedmodel.CallTurn("search", map[string]any{"q": "balance"})
	}
	return finalOutput(map[string]any{"heard": req.Messages[last].Content, "found": found})
}

func repeatRequest(t *testing.T, shape string) {
	const turns = 8
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		writeJSON(w, 200, map[string]int{"balance": 3})
	})
	s := newBinaryStack(t, doubleTextConfig(config.DoubleTextEnqueue, tools.URL), map[string]scriptedmodel.Script{"chatter": checksEachMessage})
	first := s.start(workflows.AgentInput{Agent: shape + "-chatter", Task: checkBalance})
	run := latestRun{first}
	for turn := 1; turn <= turns; turn++ {
		if turn > 1 {
			sendMessage(t, s, run, checkBalance)
		}
		awaitOutputs(t, s, run, turn)
		awaitPhase(t, s, run, signals.PhaseAwaitingUser)
	}
	tr := s.trace(run)
	require.Len(t, tools.requests("/search"), turns, "every turn's search ran")
	require.Empty(t, tracedRungs(t, tr), "a repeated request is no loop")
	require.Empty(t, s.status(run).Loops)
	for _, c := range callsOf(tr, "search") {
		require.Equal(t, signals.StatusCompleted, c.Status, c.ID)
	}
	require.Len(t, validOutputsOf(tr), turns)
	requireVersionMarker(t, first, "turn-loops")

	// A turn that goes round on its own: a loop, met at the bottom rung.
	sendMessage(t, s, run, checkThrice)
	awaitOutputs(t, s, run, turns+1)
	awaitPhase(t, s, run, signals.PhaseAwaitingUser)
	tr = s.trace(run)
	require.Equal(t, []string{"retry"}, tracedRungs(t, tr), "the ninth turn went round")
	require.Len(t, s.status(run).Loops, 1)
	require.Len(t, tools.requests("/search"), turns+3)
	recordAndReplay(t, first, historyName("turn_loops", shape))
	// The conversation continued as new before its ninth turn: the last
	// generation holds the turn's loop, and asks turn-loops again.
	require.Greater(t, s.status(run).Generation, 0)
	requireVersionMarker(t, run, "turn-loops")
	recordAndReplay(t, run, historyName("turn_loops_last", shape))
}

// tracedRungs are the rungs a trace's escalation nodes took, in order.
func tracedRungs(t *testing.T, tr signals.Trace) []string {
	var out []string
	for _, n := range nodesOf(tr, signals.KindEscalation) {
		var e struct{ Rung string }
		require.NoError(t, json.Unmarshal(n.Args, &e))
		out = append(out, e.Rung)
	}
	return out
}
