package testsuite

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/console"
	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// The chat of a conversation's run page in headless Chromium, against the
// real dev server and worker: the exchange so far, a message typed into
// the box and the next answer appearing without a reload; and, on an
// event stream the test writes, the reply shown as the model writes it.

// consoleChatConfig: a conversation, answered by chatter.
const consoleChatConfig = `
model: { base_url: "{{MODEL}}", name: console-chat }
agents:
  - { name: console-chatter, instructions: Chat., conversation: { idle_timeout: 2m } }
`

// chatter (a test double) answers the first message with an object, as
// heard does, and each later one in text, written slowly enough (2 s) to
// be read while it is written.
func chatter(req openaiRequest) scriptedmodel.Turn {
	if scriptedmodel.AssistantTurns(req) == 0 {
		return heard(req)
	}
	users := userMessages(req)
	turn := scriptedmodel.Reply("You said: " + users[len(users)-1])
	turn.ContentPieces, turn.ContentDelay = 6, time.Second // a window the follower sees, even on a busy machine
	return turn
}

// chatMessages are the chat's messages.
const chatMessages = `#chat-messages li.chat-msg`

// openChat starts a conversation, waits for its first answer, and opens
// its run page on the console at base, marked (window.chatMarker) so a
// reload would show.
func openChat(t *testing.T, b *browser, base string) (*stack, latestRun) {
	t.Helper()
	s := newStack(t, consoleChatConfig, map[string]scriptedmodel.Script{"console-chat": chatter})
	first := s.start(workflows.AgentInput{Agent: "console-chatter", Task: "hello"})
	run := latestRun{first}
	awaitPhase(t, s, run, signals.PhaseAwaitingUser)
	b.signIn(base)
	b.do("open the conversation's run page",
		chromedp.Navigate(base+"/runs/"+first.GetID()),
		chromedp.WaitVisible(chromedp.CSS(chatMessages+`.agent`)))
	require.Equal(t, 42, get(b, "mark the page", chromedp.Evaluate[int]("window.chatMarker = 42")))
	return s, run
}

// notReloaded checks the page is the one openChat marked.
func notReloaded(t *testing.T, b *browser) {
	t.Helper()
	require.Equal(t, 42, get(b, "read the page's mark", chromedp.Evaluate[int]("window.chatMarker")), "the page was not loaded again")
}

// The run page of a conversation shows it as a chat; a message typed into
// its box is sent, and the message, the reply as the model writes it and
// the answer appear without a reload, as does the next one sent with
// Enter. What the person typed is shown as text, never as markup.
func TestBrowserConsoleChatsWithAConversation(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	base := consoleServer(t)
	s, run := openChat(t, b, base)

	require.Equal(t, "hello", b.text(chatMessages+`.user .text`))
	require.JSONEq(t, `{"heard": "hello", "turns": 1}`, b.text(chatMessages+`.agent pre.text`), "an object answer is shown as JSON")
	b.waitText(`#chat-phase`, "waiting for you")

	box := `#chat-form textarea[name="text"]`
	send := `#chat-form button[type="submit"]`
	b.do("send an empty message", chromedp.Click(chromedp.CSS(send)))
	b.waitText(`#chat-answer .answer.rejected`, `message: "text" is empty (say something)`)

	said := `Paris <img src=x onerror="window.chatXSS = 1">`
	b.do("type a message and send it",
		chromedp.SendKeys(chromedp.CSS(box), said),
		chromedp.SetValue(chromedp.CSS(`#chat-form input[name="by"]`), "ana"),
		chromedp.Click(chromedp.CSS(send)))
	b.waitText(`#chat-answer .answer.ok`, "message taken: 1 waiting to be answered")
	reply := jsString("You said: " + said)
	b.waitJS("part of the reply, shown while it is written", `(() => {
		const part = document.querySelector('#chat-messages li.pending .text')?.textContent;
		return !!part && part !== `+reply+` && `+reply+`.startsWith(part); })()`)
	answer := chatMessages + `.agent[data-node-id]:last-child` // not the reply in progress
	b.waitText(answer, "You said: "+said)
	require.Zero(t, b.count(`#chat-messages li.pending`), "the answer took the place of the reply in progress")
	require.Equal(t, "ana", b.text(chatMessages+`.user:nth-last-child(2) .who`), "who said it")
	require.Equal(t, said, b.text(chatMessages+`.user:nth-last-child(2) .text`))
	require.Empty(t, get(b, "read the box", chromedp.Value(chromedp.CSS(box))), "a message taken empties the box")
	require.False(t, get(b, "look for the markup's effect", chromedp.Evaluate[bool]("'chatXSS' in window")), "the message is text")
	require.Zero(t, b.count(`#chat img`))
	b.waitText(`#chat-phase`, "waiting for you")
	b.screenshot("run-chat")

	b.do("send the next message with Enter", chromedp.SendKeys(chromedp.CSS(box), "Rome"+kb.Enter))
	b.waitText(answer, "You said: Rome")
	notReloaded(t, b)

	// The chat is the trace's messages and answers, each once, in order.
	var want []string
	for _, n := range s.trace(run).Nodes {
		if n.Status != signals.StatusCompleted {
			continue
		}
		switch n.Kind {
		case signals.KindTask:
			want = append(want, "user "+n.ID)
		case signals.KindOutput:
			want = append(want, "agent "+n.ID)
		}
	}
	require.Len(t, want, 6)
	shown := get(b, "read the chat", chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('#chat-messages li.chat-msg')].map(li => li.dataset.role + " " + li.dataset.nodeId)`))
	require.Equal(t, want, shown)

	tr := s.trace(run)
	var m struct{ Message, By string }
	require.NoError(t, json.Unmarshal(nodesOf(tr, signals.KindTask)[1].Args, &m))
	require.Equal(t, said, m.Message, "the run took the message as typed")
	require.Equal(t, "ana", m.By)
}

// The model's text as it streams (text events) is shown in a pending
// reply: appended at its byte offset, started again at offset 0 (a new
// attempt), replaced by the settled request's whole reply and then by
// the answer. The stream is the test's own, written after what the real
// run's page shows: the page is the real one.
func TestBrowserConsoleChatShowsTheReplyAsItIsWritten(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	h, err := console.New(serverClient, console.Options{Namespace: "default", Token: consoleToken})
	require.NoError(t, err)
	events := make(chan string)
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc("GET /runs/{id}/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case e := <-events:
				_, _ = io.WriteString(w, e)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	})
	s, run := openChat(t, b, serveConsole(t, mux))
	wait := nodesOf(s.trace(run), signals.KindTask)[1] // the run waits here for a message

	// send writes an event to the page's stream (once the page is
	// connected: the channel is not buffered).
	send := func(typ string, data any) {
		t.Helper()
		raw, err := json.Marshal(data)
		require.NoError(t, err)
		select {
		case events <- fmt.Sprintf("event: %s\ndata: %s\n\n", typ, raw):
		case <-time.After(stepTimeout):
			t.Fatalf("the page did not take the %s event %s", typ, raw)
		}
	}
	node := func(n signals.Node) {
		t.Helper()
		n.Agent, n.At = "console-chatter", time.Now().UTC()
		send(feed.TypeNode, feed.Event{ID: feed.ID(n.At, n.ID, string(n.Status)), Type: feed.TypeNode, Node: &n})
	}
	text := func(req string, attempt, offset int, delta string) {
		t.Helper()
		send("text", map[string]any{"type": "text", "node": req, "delta": delta, "offset": offset, "attempt": attempt})
	}
	pending := `#chat-messages li.pending .text`
	pendingIs := func(want string) {
		t.Helper()
		b.waitJS("the reply in progress to be "+want, "document.querySelector('"+pending+"')?.textContent === "+jsString(want))
	}

	node(signals.Node{ID: wait.ID, Kind: signals.KindTask, Status: signals.StatusCompleted, Args: json.RawMessage(`{"message": "Is Lisbon nice in May?", "by": "ana"}`)})
	b.waitText(chatMessages+`.user:last-child`, "Is Lisbon nice in May?")
	send(feed.TypePhase, feed.Event{Type: feed.TypePhase, Phase: signals.PhaseRunning})
	b.waitText(`#chat-phase`, "working…")

	req := "n90"
	text(req, 1, 0, "Lisbon ")
	pendingIs("Lisbon ")
	text(req, 1, 7, "is <b>lovely</b>")
	pendingIs("Lisbon is <b>lovely</b>")
	require.Zero(t, b.count(`#chat b`), "the model's text is text")
	text(req, 1, 99, "a delta after a gap is not shown")
	text(req, 1, 23, " in May")
	pendingIs("Lisbon is <b>lovely</b> in May")
	text(req, 2, 0, "Lisboa é ") // a new attempt starts again; é is two bytes
	pendingIs("Lisboa é ")
	text(req, 2, 10, "linda")
	pendingIs("Lisboa é linda")
	b.screenshot("run-chat-writing")

	whole := "Lisboa é linda in May: mild and sunny."
	node(signals.Node{ID: req, Kind: signals.KindRequest, Status: signals.StatusCompleted, Output: json.RawMessage(`{"content": ` + jsString(whole) + `}`)})
	pendingIs(whole)
	node(signals.Node{ID: "n91", Kind: signals.KindOutput, Status: signals.StatusCompleted, Output: json.RawMessage(jsString(whole))})
	b.waitText(chatMessages+`.agent[data-node-id="n91"]`, whole)
	require.Zero(t, b.count(`#chat-messages li.pending`), "the answer took the reply's place")
	send(feed.TypePhase, feed.Event{Type: feed.TypePhase, Phase: signals.PhaseAwaitingUser})
	b.waitText(`#chat-phase`, "waiting for you")

	// An answer an edit invalidated leaves the chat; the end closes the box.
	node(signals.Node{ID: "n91", Kind: signals.KindOutput, Status: signals.StatusInvalidated, Output: json.RawMessage(jsString(whole))})
	b.waitJS("the invalidated answer to go", `!document.querySelector('#chat-messages li[data-node-id="n91"]')`)
	send(feed.TypeEnd, feed.Event{Type: feed.TypeEnd, Result: json.RawMessage(`{}`)})
	b.waitJS("the message box to close", `document.querySelector('#chat-form fieldset').disabled`)
	require.Equal(t, 3, b.count(chatMessages), "the first turn and the message")
	notReloaded(t, b)
}
