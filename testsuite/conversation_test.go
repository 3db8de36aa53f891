package testsuite

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A conversation of a hundred turns crosses continue-as-new (the test
// server suggests it after 150 events, about fifteen turns) and loses
// nothing: every message is a task node of the trace, each turn's output
// answers its own message, and the model of the last turn was sent the
// whole chat.
func TestAHundredTurnConversationCrossesContinueAsNew(t *testing.T) {
	t.Parallel()
	const turns = 100
	s := newBinaryStack(t, conversationParityConfig, map[string]scriptedmodel.Script{"parity": heard})
	first := s.start(workflows.AgentInput{Agent: "free-form-chatter", Task: "hello"})
	run := latestRun{first}
	// Each message is sent once the model was asked about the one before
	// (the scripted model's own count: no query loads the server), so each
	// is a turn of its own; one that comes while the run finishes the turn
	// before waits in the inbox and starts the next.
	asked := func(n int) {
		require.Eventually(t, func() bool { return len(s.model.Requests()) >= n }, time.Minute, 20*time.Millisecond, "model request %d", n)
	}
	asked(1)
	for i := 1; i < turns; i++ {
		res := sendMessage(t, s, run, fmt.Sprintf("message %d", i))
		require.LessOrEqual(t, res.Queued, 1, "turn %d", i)
		asked(i + 1)
	}
	got, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf(`{"heard": "message %d", "turns": %d}`, turns-1, turns), string(got.Output))
	require.Greater(t, got.Generation, 2, "the conversation continued as new several times")

	tr := s.trace(run)
	outs := nodesOf(tr, signals.KindOutput)
	require.Len(t, outs, turns)
	for i, o := range outs {
		want := "hello"
		if i > 0 {
			want = fmt.Sprintf("message %d", i)
		}
		require.JSONEq(t, fmt.Sprintf(`{"heard": %q, "turns": %d}`, want, i+1), string(o.Output), "turn %d answers its own message", i)
	}
	last := s.model.Requests()[len(s.model.Requests())-1]
	users := 0
	for _, m := range last.Messages {
		if m.Role == "user" {
			users++
		}
	}
	require.Equal(t, turns, users, "the last turn's model was sent the whole chat")
}

// sendMessage sends a message update once, as any client does: a run
// continuing as new takes it all the same (docs/messages.md).
func sendMessage(t *testing.T, s *stack, run latestRun, text string) signals.MessageResult {
	t.Helper()
	var res signals.MessageResult
	require.NoError(t, s.updateInto(run, signals.Message, signals.MessageRequest{Text: text}, &res), "message %q", text)
	return res
}
