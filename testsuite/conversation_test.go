package testsuite

import (
	"fmt"
	"net/http"
	"strings"
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

// sendMessage sends a message update as a chat client would: sent again
// when the run says it is continuing as new at that moment.
func sendMessage(t *testing.T, s *stack, run latestRun, text string) signals.MessageResult {
	t.Helper()
	for range 50 {
		var res signals.MessageResult
		err := s.updateInto(run, signals.Message, signals.MessageRequest{Text: text}, &res)
		if err == nil {
			return res
		}
		require.ErrorContains(t, err, "send the message again in a moment", "message %q", text)
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("message %q: refused 50 times", text)
	return signals.MessageResult{}
}

// rollbackConfig: a conversation whose message cuts the turn short and
// rolls it back; book is a write.
const rollbackConfig = `
model: { base_url: "{{MODEL}}", name: rollbacker }
tools:
  - { name: book, http: { url: "{{TOOLS}}/book" }, effect: write, parameters: { type: object } }
agents:
  - { name: rollbacker, instructions: Book., tools: [book], conversation: { idle_timeout: 3s }, double_text: rollback }
`

// rollbacker (a test double) books seat 12A, then takes a minute over its
// next reply; rolled back with the user's message, it books 12A again and
// answers with what it heard.
func rollbacker(req openaiRequest) scriptedmodel.Turn {
	users, assistants := 0, 0
	last := ""
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			users, last = users+1, m.Content
		case "assistant":
			assistants++
		}
	}
	switch {
	case assistants == 0:
		return scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"})
	case users == 1:
		turn := scriptedmodel.Reply("still thinking")
		turn.Delay = time.Minute
		return turn
	}
	return finalOutput(map[string]any{"seat": "12A", "heard": last})
}

// With double_text rollback, a message cuts the model request in flight
// short and rolls the turn back; the model books the same seat again, and
// the effect ledger answers it: the write happened once.
func TestConversationRollbackMakesNoWriteTwice(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 200, map[string]string{"booking": "B-1"})
	})
	s := newBinaryStack(t, strings.ReplaceAll(rollbackConfig, "{{TOOLS}}", tools.URL), map[string]scriptedmodel.Script{"rollbacker": rollbacker})
	first := s.start(workflows.AgentInput{Agent: "rollbacker", Task: "book me a seat"})
	run := latestRun{first}
	require.Eventually(t, func() bool { return len(tools.requests("/book")) == 1 }, 30*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool { return len(s.model.Requests()) == 2 }, 30*time.Second, 50*time.Millisecond, "the slow reply is asked")
	sendMessage(t, s, run, "window seat, please")

	got, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"seat": "12A", "heard": "window seat, please"}`, string(got.Output))
	require.Len(t, tools.requests("/book"), 1, "the write happened once")
	tr := s.trace(run)
	var books []signals.Node
	for _, n := range nodesOf(tr, signals.KindCall) {
		if n.Tool == "book" {
			books = append(books, n)
		}
	}
	require.Len(t, books, 2)
	require.Equal(t, signals.StatusInvalidated, books[0].Status, "rolled back")
	require.Equal(t, signals.StatusCompleted, books[1].Status)
	require.Equal(t, books[0].ID, books[1].ReusedFrom, "the ledger answered the same write again")
	reqs := nodesOf(tr, signals.KindRequest)
	require.Equal(t, signals.StatusInvalidated, reqs[1].Status)
	require.Contains(t, reqs[1].Error, "abandoned: the user sent a message (double_text: rollback)")
}
