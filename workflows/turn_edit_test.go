package workflows

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A person edits an earlier turn of a conversation: the run goes on from
// the edited node, answers that turn again and waits for the next
// message; what came after the node (later turns, their messages too) is
// invalidated, and no write is made twice.

// finalAnswer is a reply that ends a turn with {"answer": text}, in
// either run shape.
func finalAnswer(id, text string) activities.ModelReply {
	return activities.ModelReply{ToolCalls: []activities.ToolCall{call(id, FinalOutputTool, string(mustJSON(map[string]string{"answer": text})))}}
}

// bookedReplies: the first turn searches and books UA1 (a write), then
// answers; the second answers its message. The nodes: n1 the task, n2 the
// first request, n3 the search, n4 the booking, n5 the request that
// answers, n8 the second message, n12 the wait for a third.
func bookedReplies() []activities.ModelReply {
	return []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("s1", "search_flights", `{"to":"PAR"}`), call("b1", "book_flight", `{"flight_id":"UA1"}`)}},
		finalAnswer("f1", "Booked UA1."),
		finalAnswer("f2", "Rome too."),
	}
}

// twoTurns runs spec's conversation on bookedReplies, the second message
// ("and Rome?") at 10 minutes, after setup (what a test sends it).
func twoTurns(t *testing.T, spec *config.Resolved, setup func(h *harness)) *harness {
	h := newHarness(t, writeSpec(spec), bookedReplies(), okTool)
	var msg updateResult
	h.message(10*time.Minute, "and Rome?", &msg)
	setup(h)
	_, _ = h.run(AgentInput{Agent: "travel", Task: "book a trip"})
	require.NoError(t, msg.rejected)
	return h
}

// editedChat is the next generation of a two-turn conversation a person
// edited (req, at minute 20, while it waited for a third message).
func editedChat(t *testing.T, spec *config.Resolved, req signals.EditRequest, before ...string) (AgentInput, signals.EditResult) {
	var edit updateResult
	h := twoTurns(t, spec, func(h *harness) {
		if len(before) > 0 {
			h.before(before...)
		}
		h.edit(20*time.Minute, req, &edit)
	})
	require.NoError(t, edit.rejected)
	require.NoError(t, edit.err)
	return continuedInput(t, h), edit.result.(signals.EditResult)
}

// glance is a run as a test saw it at a time: its status, and how many
// model requests it had made.
type glance struct {
	status signals.Status
	asked  int
}

// thankLater has the run glanced at after 5 minutes, and sent the message
// "thanks" at 10.
func (h *harness) thankLater() (*glance, *updateResult) {
	g, msg := &glance{}, &updateResult{}
	h.env.RegisterDelayedCallback(func() {
		g.status = h.status()
		h.mu.Lock()
		g.asked = len(h.requests)
		h.mu.Unlock()
	}, 5*time.Minute)
	h.message(10*time.Minute, "thanks", msg)
	return g, msg
}

// validOutputs are the answers of a trace that still stand.
func validOutputs(tr signals.Trace) []string {
	var out []string
	for _, n := range nodesOfKind(tr, signals.KindOutput) {
		if n.Status == signals.StatusCompleted {
			out = append(out, string(n.Output))
		}
	}
	return out
}

// An edit of the first turn's search result, or of its answer, while the
// conversation waits for its third message: the first turn is answered
// again from the edited node (the model asked only for what depended on
// it, the booking not made again), the second turn and its message are
// invalidated, and the run waits for the next message, which it answers.
func TestAnEditOfAnEarlierTurnAnswersItAgainAndWaits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   signals.EditRequest
		answer string // the first turn's answer after the edit
		asked  int    // model requests before the next message
	}{
		{"a call's result", signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"flights":[{"id":"AF9"}]}`)}, "Booked AF9.", 1},
		{"the answer", signals.EditRequest{NodeID: "n5", Output: json.RawMessage(`{"tool_calls": [{"id": "f1", "name": "final_output", "args": {"answer": "Booked UA1, seat 12A."}}]}`)}, "Booked UA1, seat 12A.", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachShape(t, config.DoubleTextEnqueue, func(t *testing.T, spec *config.Resolved) {
				next, res := editedChat(t, spec, tc.edit)
				require.Subset(t, res.Invalidated, []string{"n8", "n12"}, "what followed the node: the second message and the wait too")

				replies := append(slices.Repeat([]activities.ModelReply{finalAnswer("f3", tc.answer)}, tc.asked), finalAnswer("f4", "You're welcome."))
				h := newHarness(t, writeSpec(spec), replies, okTool)
				early, msg := h.thankLater()
				out, err := h.run(next)
				require.NoError(t, err)
				require.NoError(t, msg.rejected)

				require.Equal(t, signals.PhaseAwaitingUser, early.status.Phase, "the turn answered again, the run waits for the next message")
				require.Equal(t, tc.asked, early.asked)
				require.Empty(t, h.toolReqs, "the booking is not made again, the edited search not run")
				require.JSONEq(t, `{"answer": "You're welcome."}`, string(out.Output), "the next message was answered")
				tr := h.trace()
				outputs := validOutputs(tr)
				require.Len(t, outputs, 2)
				require.JSONEq(t, string(mustJSON(map[string]string{"answer": tc.answer})), outputs[0])
				require.Zero(t, h.requests[0].Base, "the edited conversation is sent whole")
				for _, req := range h.requests {
					require.NotContains(t, userMessages(req), "and Rome?", "the invalidated message is not read again")
				}
				said := userMessages(h.requests[len(h.requests)-1])
				require.Equal(t, "thanks", said[len(said)-1])
			})
		})
	}
}

// An edit of the first turn's search while the second turn's model is
// asked: the request is abandoned, and the run answers the first turn
// again. A message that came while the second turn worked is not lost: it
// joins the first turn after its step, and the run then waits again.
func TestAnEditWhileATurnWorksKeepsTheMessagesWaiting(t *testing.T) {
	eachShape(t, config.DoubleTextEnqueue, func(t *testing.T, spec *config.Resolved) {
		var edit, early updateResult
		h := twoTurns(t, spec, func(h *harness) {
			h.modelTakes = time.Minute
			h.message(10*time.Minute+10*time.Second, "a window seat, please", &early)
			h.edit(10*time.Minute+30*time.Second, signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"flights":[{"id":"AF9"}]}`)}, &edit)
		})
		require.NoError(t, early.rejected)
		require.NoError(t, edit.rejected)
		require.NoError(t, edit.err)
		require.Contains(t, edit.result.(signals.EditResult).Invalidated, "n8", "the second turn's message")
		next := continuedInput(t, h)
		require.Len(t, next.Continued.Turn.Inbox, 1, "the message that came while the turn worked waits")

		h2 := newHarness(t, writeSpec(spec), []activities.ModelReply{finalAnswer("f3", "Booked AF9, by the window.")}, okTool)
		var st signals.Status
		h2.env.RegisterDelayedCallback(func() { st = h2.status() }, 5*time.Minute)
		res, err := h2.run(next)
		require.NoError(t, err)
		require.Equal(t, signals.PhaseAwaitingUser, st.Phase)
		require.JSONEq(t, `{"answer": "Booked AF9, by the window."}`, string(res.Output), "idle, it ends with the turn's answer")
		require.Len(t, h2.requests, 1)
		said := userMessages(h2.requests[0])
		require.Equal(t, []string{"book a trip", "a window seat, please"}, said, "the waiting message joined the first turn, the invalidated one did not")
		require.Empty(t, h2.toolReqs, "no write twice")
	})
}

// cutEditedTurn edits the first turn's search while the conversation
// waits (before: the changes the first generation was recorded before),
// then, as the model answers that turn again, a message cuts the request
// short (double_text: interrupt) and the model books UA1 again. It answers
// the harness of the generation the edit continued into.
func cutEditedTurn(t *testing.T, spec *config.Resolved, before ...string) *harness {
	next, _ := editedChat(t, spec, signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"flights":[{"id":"UA1"}]}`)}, before...)
	h := newHarness(t, writeSpec(spec), []activities.ModelReply{
		{Content: "never read"},
		{ToolCalls: []activities.ToolCall{call("b2", "book_flight", `{"flight_id":"UA1"}`)}},
		finalAnswer("f3", "Booked UA1 again."),
	}, okTool)
	h.modelTakes = time.Minute
	var msg updateResult
	h.message(30*time.Second, "is it booked?", &msg)
	res, err := h.run(next)
	require.NoError(t, err)
	require.NoError(t, msg.rejected)
	require.JSONEq(t, `{"answer": "Booked UA1 again."}`, string(res.Output))
	return h
}

// The turn an edit goes on with is the edited node's: the effect ledger
// reads its writes from its start, so the booking the first turn made is
// answered with its recorded result when a message cuts the turn short
// and the model asks for it again (it was made once).
func TestAMessageCuttingAnEditedTurnShortMakesNoWriteTwice(t *testing.T) {
	eachShape(t, config.DoubleTextInterrupt, func(t *testing.T, spec *config.Resolved) {
		h := cutEditedTurn(t, spec)
		require.Empty(t, h.toolReqs, "the booking was not made again")
		books := nodesOfCallsTo(h.trace(), "book_flight")
		require.Len(t, books, 2)
		require.Equal(t, "n4", books[1].ReusedFrom, "the ledger answered it with the first turn's")
	})
}

// A run whose edit was applied before turn-edit went on with the turn the
// edit invalidated, and books again, as it did.
func TestAnEditedTurnRecordedBeforeTurnEditBooksAgain(t *testing.T) {
	h := cutEditedTurn(t, chatSpec(config.DoubleTextInterrupt), versionTurnEdit)
	require.Equal(t, []string{"book_flight"}, toolNamesOf(h.toolReqs))
}
