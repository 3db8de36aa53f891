package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/signals"
)

func nodeEvent(n signals.Node) feed.Event { return feed.Event{Type: feed.TypeNode, Node: &n} }

func textOf(node, delta string, offset int) feed.Event {
	return feed.Event{Type: feed.TypeText, Text: &feed.Text{Node: node, Delta: delta, Offset: offset, Attempt: 1}}
}

func reply(id, content string) signals.Node {
	out, _ := json.Marshal(map[string]string{"content": content})
	return signals.Node{ID: id, Kind: signals.KindRequest, Status: signals.StatusCompleted, Output: out}
}

// A chat shows the user's messages (not those typed in it), the reply as
// it is written (the rest the stream did not tell when it settles, a reply
// written again after a retry on a line of its own), calls as they settle,
// a call waiting for approval, the prompt when the run waits, and the end.
func TestChatViewShowsAConversation(t *testing.T) {
	var b strings.Builder
	v := newChatView(&b)
	v.typed = []string{"hi"}
	for _, e := range []feed.Event{
		nodeEvent(signals.Node{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted, Args: json.RawMessage(`{"task": "hi"}`)}),
		textOf("n2", "Hel", 0),
		textOf("n2", "lo", 3),
		nodeEvent(reply("n2", "Hello there")),
		nodeEvent(signals.Node{ID: "n3", Kind: signals.KindOutput, Status: signals.StatusCompleted, Output: json.RawMessage(`"Hello there"`)}),
		{Type: feed.TypePhase, Phase: signals.PhaseAwaitingUser},
		nodeEvent(signals.Node{ID: "n4", Kind: signals.KindTask, Status: signals.StatusCompleted, Args: json.RawMessage(`{"message": "book it", "by": "ana"}`)}),
		textOf("n5", "Boo", 0),
		textOf("n5", "Bo", 0), // the request retried: written again
		nodeEvent(reply("n5", "Booking")),
		{Type: feed.TypeApproval, Node: &signals.Node{ID: "n6", Kind: signals.KindCall, Tool: "book", Args: json.RawMessage(`{"seat": "12A"}`)}},
		{Type: feed.TypePhase, Phase: signals.PhaseAwaitingUser},
		nodeEvent(signals.Node{ID: "n6", Kind: signals.KindCall, Tool: "book", Status: signals.StatusCompleted, Args: json.RawMessage(`{"seat": "12A"}`)}),
		nodeEvent(signals.Node{ID: "n7", Kind: signals.KindCall, Tool: "pay", Status: signals.StatusFailed, Error: "card declined"}),
		nodeEvent(signals.Node{ID: "n8", Kind: signals.KindOutput, Status: signals.StatusCompleted, Output: json.RawMessage(`{"seat": "12A"}`)}),
		{Type: feed.TypeEnd, Result: json.RawMessage(`{"output": {"seat": "12A"}}`)},
	} {
		v.show(e)
	}
	require.Equal(t, `agent> Hello there
you> 
ana> book it
agent> Boo
(written again)
agent> Booking
  ? book {"seat":"12A"} waits for your approval: type a to approve, r REASON to reject
  ✓ book {"seat":"12A"}
  ✗ pay: card declined
agent> {"seat":"12A"}
(the run ended: {"output":{"seat":"12A"}})
`, b.String())
	require.Equal(t, 1, strings.Count(b.String(), "you> "), "no prompt while a call waits for the user's approval")
	require.Empty(t, v.typed, "the message typed here was not shown again")
}

func TestApprovalOfATypedAnswer(t *testing.T) {
	for line, want := range map[string]string{"a": signals.DecisionApprove, "Y": signals.DecisionApprove, "approve": signals.DecisionApprove, "r too dear": signals.DecisionReject, "n": signals.DecisionReject} {
		req, ok := approvalOf(line, "n6", "ana")
		require.True(t, ok, line)
		require.Equal(t, want, req.Decision, line)
		require.Equal(t, "n6", req.CallID)
		require.Equal(t, "ana", req.By)
	}
	req, _ := approvalOf("r too dear", "n6", "")
	require.Equal(t, "too dear", req.Reason)
	for _, line := range []string{"maybe", "a window seat instead", "no, the other one", "yes please"} {
		_, ok := approvalOf(line, "n6", "")
		require.False(t, ok, "%q is a sentence, not an answer", line)
	}
}

// A reply whose line another broke ends on a line of its own with only
// what was not shown; a delta that does not continue what was shown waits
// for the settled node; control characters never reach the terminal:
// they are written out.
func TestChatViewEndsABrokenReplyAndPrintsNoControls(t *testing.T) {
	var b strings.Builder
	v := newChatView(&b)
	for _, e := range []feed.Event{
		textOf("n2", "Hel", 0),
		textOf("n2", "xx", 9), // a gap: not shown
		nodeEvent(signals.Node{ID: "n3", Kind: signals.KindCall, Tool: "look", Status: signals.StatusCompleted}),
		nodeEvent(reply("n2", "Hello\x1b]52;c;aGk=\x07 there")),
		textOf("n4", "", 5), // nothing it can show: no empty line
	} {
		v.show(e)
	}
	require.Equal(t, "agent> Hel\n  ✓ look\nagent> ...lo\\x1b]52;c;aGk=\\x07 there\n", b.String())
}

// A run that waits out a tool that is down says so once, on a line of its
// own, and goes on as before when the tool answers.
func TestChatViewSaysWhenTheRunWaitsOutAnOutage(t *testing.T) {
	var b strings.Builder
	v := newChatView(&b)
	for _, e := range []feed.Event{
		textOf("n2", "Let me book", 0),
		{Type: feed.TypePhase, Phase: signals.PhaseWaitingOutage},
		{Type: feed.TypePhase, Phase: signals.PhaseRunning},
		nodeEvent(signals.Node{ID: "n3", Kind: signals.KindCall, Tool: "book", Status: signals.StatusCompleted}),
	} {
		v.show(e)
	}
	require.Equal(t, "agent> Let me book\n  (a tool or the model is down: the run waits it out, then goes on)\n  ✓ book\n", b.String())
}

// In a terminal that keeps the line being typed at the bottom, a reply is
// written a whole line at a time (a long one cut at a space within the
// width); a line typed or a note that breaks it has the reply go on as
// "agent> ..."; a reply cut short ends with [cut] and why; the queued
// note says when the message is answered.
func TestLiveChatViewWritesWholeLines(t *testing.T) {
	var b strings.Builder
	v := newChatView(&b)
	v.live, v.width = true, 30
	v.show(feed.Event{Type: feed.TypePhase, Phase: signals.PhaseRunning})
	v.show(textOf("n2", "Here are two", 0))
	require.Empty(t, b.String(), "no part of a line")
	v.show(textOf("n2", " hotels:\n- A, near the river and the old town", 12))
	require.Equal(t, "agent> Here are two hotels:\n- A, near the river and the\n", b.String(), "cut at a space")
	v.typedLine()
	v.sent(signals.MessageResult{Queued: 1})
	v.show(textOf("n2", "\n- B", 52))
	v.show(nodeEvent(reply("n2", "Here are two hotels:\n- A, near the river and the old town\n- B, by the sea")))
	v.show(textOf("n4", "Sorry, I", 0))
	v.show(nodeEvent(signals.Node{ID: "n4", Kind: signals.KindRequest, Status: signals.StatusFailed, Error: "abandoned: the user sent a message (double_text: interrupt)"}))
	require.Equal(t, `agent> Here are two hotels:
- A, near the river and the
  (queued: the agent answers it after the current reply)
agent> ...old town
- B, by the sea
agent> Sorry, I [cut]
  (abandoned: the user sent a message (double_text: interrupt))
`, b.String())
}

func TestQueuedNote(t *testing.T) {
	require.Equal(t, "the agent answers it after the current reply", queuedNote(1, true))
	require.Equal(t, "the agent answers it after its current step", queuedNote(1, false))
	require.Equal(t, "3 messages wait; the agent answers them after the current reply", queuedNote(3, true))
}

func TestCutLine(t *testing.T) {
	for _, c := range []struct {
		s, line, rest string
		ok            bool
	}{
		{"short", "", "short", false},
		{"one\ntwo", "one", "two", true},
		{"a long line of words", "a long", "line of words", true},
		{"abcdefghijklmnop", "abcdefghij", "klmnop", true},
		{"ééééééééééé", "éééééééééé", "é", true},
	} {
		line, rest, ok := cutLine(c.s, 10)
		require.Equal(t, c.ok, ok, c.s)
		if ok {
			require.Equal(t, c.line, line, c.s)
			require.Equal(t, c.rest, rest, c.s)
		}
	}
}
