package testsuite

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Conversations in both run shapes, on the worker binary and the real
// server: the run answers, waits in awaiting_user, takes a message by
// update and one by signal, and ends idle with its last output.

const conversationParityConfig = `
model: { base_url: "{{MODEL}}", name: parity }
agents:
` + "  - { name: free-form-chatter, instructions: Chat., conversation: { idle_timeout: 15s } }\n" +
	"  - { name: graph-chatter, instructions: Chat., conversation: { idle_timeout: 15s }, " + llmLoop + " }\n"

// heard is a model (a test double) that answers each turn with the last
// user message it was sent, and how many it has heard.
func heard(req openaiRequest) scriptedmodel.Turn {
	users := userMessages(req)
	return finalOutput(map[string]any{"heard": users[len(users)-1], "turns": len(users)})
}

// userMessages are what the user said in a request's conversation, in
// order: its task, then each message.
func userMessages(req openaiRequest) []string {
	var users []string
	for _, m := range req.Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	return users
}

func TestParityOfConversations(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells, parityCell{capability: "conversation", shape: shape, run: func(t *testing.T) { converse(t, shape) }})
	}
	runParity(t, cells)
}

func converse(t *testing.T, shape string) {
	s := newBinaryStack(t, conversationParityConfig, map[string]scriptedmodel.Script{"parity": heard})
	run := s.start(workflows.AgentInput{Agent: shape + "-chatter", Task: "hello"})
	follower := startFollow(t, run.GetID())
	awaitOutputs(t, s, run, 1)
	awaitPhase(t, s, run, signals.PhaseAwaitingUser)

	out, err := exec.Command(filepath.Join(binaries(t), "unstuck"), "say", run.GetID(), "--text", "Paris", "--by", "ana", "--address", serverAddress).CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "message taken by "+run.GetID()+": 1 waiting to be answered")
	awaitOutputs(t, s, run, 2)
	require.NoError(t, s.client.SignalWorkflow(context.Background(), run.GetID(), "", signals.Message, map[string]string{"text": "Rome", "by": "ana"}))

	got, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", string(got.Status))
	require.JSONEq(t, `{"heard": "Rome", "turns": 3}`, string(got.Output), "idle, it ends with its last output")
	tr := s.trace(run)
	outs := nodesOf(tr, signals.KindOutput)
	require.Len(t, outs, 3)
	require.JSONEq(t, `{"heard": "Paris", "turns": 2}`, string(outs[1].Output))
	var said []string
	for _, n := range nodesOf(tr, signals.KindTask)[1:] {
		if n.Status == signals.StatusCompleted {
			var m struct{ Message, By string }
			require.NoError(t, json.Unmarshal(n.Args, &m))
			said = append(said, m.By+": "+m.Message)
		}
	}
	require.Equal(t, []string{"ana: Paris", "ana: Rome"}, said)
	last := nodesOf(tr, signals.KindTask)[3]
	require.Equal(t, signals.StatusSkipped, last.Status)
	require.Contains(t, last.Error, "idle_timeout (15s)")

	recordAndReplay(t, run, "conversation_"+strings.ReplaceAll(shape, "-", "_"))
	requireFollowed(t, run.GetID(), tr, follower.events(t))

	err = s.update(run, signals.Message, signals.MessageRequest{Text: "still there?"})
	require.Error(t, err, "a closed conversation takes no message")
}

// awaitOutputs waits until the run's trace has n output nodes.
func awaitOutputs(t *testing.T, s *stack, run interface{ GetID() string }, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		v, err := s.client.QueryWorkflow(context.Background(), run.GetID(), "", signals.QueryTrace)
		if err != nil {
			return false
		}
		var tr signals.Trace
		return v.Get(&tr) == nil && len(nodesOf(tr, signals.KindOutput)) >= n
	}, 60*time.Second, 100*time.Millisecond, "%d outputs", n)
}
