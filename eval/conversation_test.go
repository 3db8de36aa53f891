package eval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

// chatTrace is a conversation of two turns waiting for its third: the
// task, a message an edit invalidated, the message sent again, and the
// wait for the next.
func chatTrace() []signals.Node {
	task := func(id string, status signals.NodeStatus, args string) signals.Node {
		n := signals.Node{ID: id, Kind: signals.KindTask, Status: status}
		if args != "" {
			n.Args = json.RawMessage(args)
		}
		return n
	}
	output := func(id, out string) signals.Node {
		return signals.Node{ID: id, Kind: signals.KindOutput, Status: signals.StatusCompleted, Output: json.RawMessage(out)}
	}
	return []signals.Node{
		task("n1", signals.StatusCompleted, `{"task":"Check my balance.","input":{}}`),
		output("n3", `{"balance":10}`),
		task("n4", signals.StatusInvalidated, `{"message":"and savings?","by":"ana"}`),
		task("n5", signals.StatusCompleted, `{"message":"and my savings?","by":"ana"}`),
		{ID: "n6", Kind: signals.KindEscalation, Status: signals.StatusCompleted, Args: json.RawMessage(`{"rung":"retry"}`)},
		output("n8", `{"savings":250}`),
		task("n9", signals.StatusPending, ""),
	}
}

// An export keeps a conversation's messages, in order, with who sent
// them; the run's task is not one, nor a message an edit invalidated,
// nor the wait for the next.
func TestFromRecordingKeepsAConversationsMessages(t *testing.T) {
	c := FromRecording(Recording{WorkflowID: "chat-1", Nodes: chatTrace()})
	require.Equal(t, []Message{{Text: "and my savings?", By: "ana"}}, c.Messages)
	require.Equal(t, 1, MessagesTaken(chatTrace()))

	one := FromRecording(Recording{WorkflowID: "run-1", Nodes: chatTrace()[:2]})
	require.Empty(t, one.Messages, "a run of one task has none")
}

// A conversation that answered its case's messages is read as one that
// ended idle: completed with its last turn's output, its steps and spend
// from its status, its rungs from its trace.
func TestConversationOutcome(t *testing.T) {
	st := signals.Status{Agent: "bank", Step: 5, Spend: &signals.SpendStatus{ModelRequests: 4, ToolCalls: 2, InputTokens: 900, OutputTokens: 40}}
	o := ConversationOutcome("eval-chat-1-s", st, chatTrace())
	require.Equal(t, Outcome{Run: "eval-chat-1-s", Status: StatusCompleted, Output: map[string]any{"savings": 250.0}, Steps: 5,
		ModelRequests: 4, ToolCalls: 2, InputTokens: 900, OutputTokens: 40, Rungs: []string{"retry"}}, o)
}

// A case's messages each need a text.
func TestCaseMessagesNeedText(t *testing.T) {
	c, err := Parse("chat.yaml", []byte("agent: a\ntask: x\nmessages:\n  - { text: hello, by: ana }\n  - { text: 'then?' }\n"))
	require.NoError(t, err)
	require.Equal(t, []Message{{Text: "hello", By: "ana"}, {Text: "then?"}}, c.Messages)
	_, err = Parse("chat.yaml", []byte("agent: a\ntask: x\nmessages:\n  - { text: hello }\n  - { by: ana }\n"))
	require.EqualError(t, err, "chat.yaml: messages[1].text: missing")
}
