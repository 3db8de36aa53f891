package eval

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/signals"
)

// A conversation's run (an agent with conversation:) does not end at its
// output: it waits for the next message, for idle_timeout. An eval sends
// a case's recorded messages, each once the run waits for it, and after
// the last answer ends the conversation as a user leaving it would: the
// run is cancelled, and its outcome is that of a conversation that ended
// idle, completed with its last output.

// Message is a conversation's message after its task: its text, and who
// sent it.
type Message struct {
	Text string `yaml:"text" json:"text"`
	By   string `yaml:"by,omitempty" json:"by,omitempty"`
}

// messageArgs are a message's task node's arguments.
type messageArgs struct {
	Message *string `json:"message"`
	By      string  `json:"by"`
}

// messagesOf are the messages a run's trace took, in trace order: its
// task nodes holding a message, those an edit invalidated left out.
func messagesOf(nodes []signals.Node) []Message {
	var out []Message
	for _, n := range nodes {
		if n.Kind != signals.KindTask || n.Status != signals.StatusCompleted {
			continue
		}
		var m messageArgs
		if json.Unmarshal(n.Args, &m) == nil && m.Message != nil {
			out = append(out, Message{Text: *m.Message, By: m.By})
		}
	}
	return out
}

// MessagesTaken is how many messages a run's trace has taken: a
// conversation waiting with as many as an eval sent it has answered the
// last.
func MessagesTaken(nodes []signals.Node) int {
	return len(messagesOf(nodes))
}

// ConversationOutcome is what a conversation that answered every message
// of its case did, read while it waits for the next (st its status, nodes
// its trace): completed with its last turn's output, its steps and spend
// as its status has them, the rest from its trace as for a run without a
// result.
func ConversationOutcome(id string, st signals.Status, nodes []signals.Node) Outcome {
	o := OutcomeOf(Recording{WorkflowID: id, Status: StatusCompleted, Nodes: nodes})
	o.Steps, o.Output = st.Step, decoded(lastOutput(nodes))
	o.spent(st.Spend)
	return o
}

// lastOutput is the output of the last turn a trace answered.
func lastOutput(nodes []signals.Node) json.RawMessage {
	var out json.RawMessage
	for _, n := range nodes {
		if n.Kind == signals.KindOutput && n.Status == signals.StatusCompleted {
			out = n.Output
		}
	}
	return out
}
