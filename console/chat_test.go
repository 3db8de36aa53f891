package console

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/signals"
)

// chatRun is a conversation waiting for its third message: the task, an
// answer in text, a message by ana (with markup in it), an answer that
// was refused and one kept as an object, and the wait (n8).
func chatRun() (signals.Status, signals.Trace) {
	at := func(s int) time.Time { return testNow.Add(time.Duration(s) * time.Second) }
	st := signals.Status{Agent: "concierge", Phase: signals.PhaseAwaitingUser, Step: 4, Conversation: true}
	tr := signals.Trace{Nodes: []signals.Node{
		{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted, Agent: "concierge", At: at(0),
			Args: json.RawMessage(`{"task":"Hi, I land in Lisbon on Friday","input":{}}`)},
		{ID: "n2", Kind: signals.KindRequest, Status: signals.StatusCompleted, Agent: "concierge", Parents: []string{"n1"}, At: at(1)},
		{ID: "n3", Kind: signals.KindOutput, Status: signals.StatusCompleted, Agent: "concierge", Parents: []string{"n2"}, At: at(1),
			Output: json.RawMessage(`"Welcome! Where would you like to stay?"`)},
		{ID: "n4", Kind: signals.KindTask, Status: signals.StatusCompleted, Agent: "concierge", Parents: []string{"n3"}, At: at(5),
			Args: json.RawMessage(`{"message":"Near the river, <b>under 150</b>","by":"ana"}`)},
		{ID: "n5", Kind: signals.KindRequest, Status: signals.StatusCompleted, Agent: "concierge", Parents: []string{"n4"}, At: at(6)},
		{ID: "n6", Kind: signals.KindOutput, Status: signals.StatusFailed, Agent: "concierge", Parents: []string{"n5"}, At: at(6),
			Output: json.RawMessage(`"not what the schema wants"`), Error: "the output does not match the schema"},
		{ID: "n7", Kind: signals.KindOutput, Status: signals.StatusCompleted, Agent: "concierge", Parents: []string{"n5"}, At: at(7),
			Output: json.RawMessage(`{"hotel":"Rio & Tejo","night":120}`)},
		{ID: "n8", Kind: signals.KindTask, Status: signals.StatusPending, Agent: "concierge", Parents: []string{"n7"}, At: at(7)},
	}}
	return st, tr
}

func TestRunPageOfAConversationShowsTheChat(t *testing.T) {
	m, h := newTestConsole(t, "")
	st, tr := chatRun()
	expectRun(t, m, "chat-1", st, tr)

	w := get(h, "/runs/chat-1")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	require.NotContains(t, w.Body.String(), "<b>under", "what a person wrote is escaped")
	page := parse(t, w.Body.String())
	chat := page.one(t, "section", "id", "chat")
	require.Equal(t, "awaiting_user", chat.attr("data-phase"))
	require.Equal(t, "concierge", chat.attr("data-agent"))

	msgs := chat.one(t, "ol", "id", "chat-messages").all("li", "class", "chat-msg")
	type shown struct{ node, role, who, text, tag string }
	var got []shown
	for _, li := range msgs {
		text := li.all("", "class", "text")
		require.Len(t, text, 1)
		got = append(got, shown{li.attr("data-node-id"), li.attr("data-role"), li.one(t, "span", "class", "who").text(), text[0].text(), text[0].n.Data})
		require.True(t, li.hasClass(li.attr("data-role")))
	}
	require.Equal(t, []shown{
		{"n1", "user", "user", "Hi, I land in Lisbon on Friday", "div"},
		{"n3", "agent", "concierge", "Welcome! Where would you like to stay?", "div"},
		{"n4", "user", "ana", "Near the river, <b>under 150</b>", "div"},
		{"n7", "agent", "concierge", `{ "hotel": "Rio & Tejo", "night": 120 }`, "pre"},
	}, got, "the messages and the answers kept, in order: not the refused answer n6, nor the wait n8")

	phase := chat.one(t, "p", "id", "chat-phase")
	require.Equal(t, "awaiting_user", phase.attr("data-phase"))
	require.Equal(t, "waiting for you", phase.text())
	var labels map[string]string
	require.NoError(t, json.Unmarshal([]byte(chat.attr("data-phase-labels")), &labels))
	require.Equal(t, "working…", labels["running"], "the script words a phase event as the page does")
	for _, p := range signals.Phases {
		require.NotEmpty(t, labels[string(p)], "every phase has its words: %s", p)
	}

	form := chat.one(t, "form", "id", "chat-form")
	require.Equal(t, "/runs/chat-1/message", form.attr("hx-post"))
	require.Equal(t, "#chat-answer", form.attr("hx-target"))
	require.False(t, hasAttr(form.one(t, "fieldset"), "disabled"))
	form.one(t, "textarea", "name", "text")
	form.one(t, "input", "name", "by")
	form.one(t, "button", "type", "submit")
	chat.one(t, "div", "id", "chat-answer")
	page.one(t, "script", "src", "/static/chat.js")

	// The stream takes up after what the page shows: the phase told last,
	// at the time of the latest change.
	after := feed.ID(testNow.Add(7*time.Second), "~phase", "awaiting_user")
	require.Equal(t, "/runs/chat-1/events?after="+url.QueryEscape(after), chat.attr("data-events"))

	// The chat is outside the live part, so its refresh never eats typing.
	require.Empty(t, page.one(t, "div", "id", "live").all("section", "id", "chat"))
}

func TestTheChatOfAnEndedConversationTakesNoMessage(t *testing.T) {
	m, h := newTestConsole(t, "")
	st, tr := chatRun()
	st.Phase = signals.PhaseCompleted
	tr.Nodes[len(tr.Nodes)-1].Status = signals.StatusSkipped
	expectRun(t, m, "chat-1", st, tr)
	chat := parse(t, get(h, "/runs/chat-1").Body.String()).one(t, "section", "id", "chat")
	require.Equal(t, "the conversation has ended", chat.one(t, "p", "id", "chat-phase").text())
	require.True(t, hasAttr(chat.one(t, "form", "id", "chat-form").one(t, "fieldset"), "disabled"), "the message box is closed")
}

func TestARunThatIsNotAConversationHasNoChat(t *testing.T) {
	m, h := newTestConsole(t, "")
	st, tr := sampleRun()
	expectRun(t, m, "travel-1", st, tr)
	page := parse(t, get(h, "/runs/travel-1").Body.String())
	require.Empty(t, page.all("section", "id", "chat"))
	require.Empty(t, page.all("script", "src", "/static/chat.js"))
}

// A worker whose status does not say conversation (an earlier release)
// still gets the chat when the run shows it is one.
func TestAConversationIsKnownWithoutTheStatusSayingSo(t *testing.T) {
	task := signals.Node{Kind: signals.KindTask, Status: signals.StatusCompleted}
	tests := []struct {
		name  string
		st    signals.Status
		tasks int
		want  bool
	}{
		{"the status says so", signals.Status{Phase: signals.PhaseRunning, Conversation: true}, 1, true},
		{"waiting for a message", signals.Status{Phase: signals.PhaseAwaitingUser}, 1, true},
		{"a message in the trace", signals.Status{Phase: signals.PhaseRunning}, 2, true},
		{"one task, working", signals.Status{Phase: signals.PhaseRunning}, 1, false},
		{"one task, waiting for a person", signals.Status{Phase: signals.PhaseAwaitingHuman}, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr signals.Trace
			for range tt.tasks {
				tr.Nodes = append(tr.Nodes, task)
			}
			require.Equal(t, tt.want, isConversation(tt.st, tr))
		})
	}
}

// The message box's refusals: what the console refuses is not sent, and
// the run's own refusal is shown verbatim.
func TestAMessageTheRunWouldRefuseIsNotSent(t *testing.T) {
	tests := []struct {
		name, text, says string
	}{
		{"empty", "  \n ", `not sent: message: "text" is empty (say something)`},
		{"over 32 KiB", strings.Repeat("a", signals.MaxMessageText+1), `not sent: message: "text" is 32 KiB, over the 32 KiB a message may hold`},
		{"over the form's bound", strings.Repeat("a", maxFormBytes+1), "not sent: message: the form is over 1024 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, h := newTestConsole(t, "") // no update expected: the mock fails on one
			class, text := answerOf(t, post(h, "/runs/chat-1/message", url.Values{"text": {tt.text}}))
			require.Equal(t, "rejected", class)
			require.Equal(t, tt.says, text)
		})
	}
}

func TestARunsRefusalOfAMessageIsShown(t *testing.T) {
	for _, refusal := range []string{
		"message: agent travel is not a conversation (its config has no conversation:): start a new run for a new task",
		"message: the run is working on the last message and its agent's double_text is reject: send it again when the run is awaiting_user",
	} {
		m, h := newTestConsole(t, "")
		var opts client.UpdateWorkflowOptions
		expectUpdate(t, m, &opts, nil, errors.New(refusal))
		class, text := answerOf(t, post(h, "/runs/chat-1/message", url.Values{"text": {"hello"}}))
		require.Equal(t, "rejected", class)
		require.Equal(t, refusal, text, "the run's refusal, verbatim")
		require.Equal(t, signals.Message, opts.UpdateName)
	}
}

// The events stream takes up after ?after= (the page's), unless the
// EventSource says where it is (Last-Event-ID); a bad one is a 400 naming
// which.
func TestTheEventsStreamTakesUpAfterTheGivenEvent(t *testing.T) {
	m, h := newTestConsole(t, "")
	m.On("DescribeWorkflowExecution", anyCtx, "chat-1", "").Return(&workflowservice.DescribeWorkflowExecutionResponse{}, nil)
	w := get(h, "/runs/chat-1/events?after=yesterday")
	require.Equal(t, http.StatusBadRequest, w.Code)
	require.Contains(t, w.Body.String(), `after: event id "yesterday" is not one of this feed's`)

	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8234/runs/chat-1/events?after="+url.QueryEscape(feed.ID(testNow, "~phase", "running")), nil)
	r.Header.Set("Last-Event-ID", "last week")
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusBadRequest, w.Code)
	require.Contains(t, w.Body.String(), `Last-Event-ID: event id "last week"`, "the reconnecting EventSource's id wins")
}
