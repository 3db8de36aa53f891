package chat

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/signals"
)

// The output ends a turn; the next message taken begins the next one.
// The turn under way begins at its message, or at the run's task in the
// first turn.

// Begin starts a turn at the message just taken (node at), at step step:
// the step ceiling counts the turn's steps from there.
func (c *Conversation) Begin(step int, at string) {
	c.s.Since = step
	c.s.Began = at
}

// Answered keeps a turn's output: the run's result if it ends idle.
func (c *Conversation) Answered(out json.RawMessage) { c.s.LastOutput = out }

// WaitAt has the run wait for the next message at task node node.
func (c *Conversation) WaitAt(node string) { c.s.Waiting = node }

// Waited ends the wait for the next message.
func (c *Conversation) Waited() { c.s.Waiting = "" }

// Start is where the turn under way begins in the trace: at its message,
// or at the run's task in the first turn (-1: neither is there).
func (c *Conversation) Start() int {
	if i := c.run.Index(c.s.Began); i >= 0 {
		return i
	}
	for i := range c.run.Len() {
		if c.run.At(i).Kind == signals.KindTask {
			return i
		}
	}
	return -1
}

// TurnOf is the turn the node at index i belongs to: the message that
// began it ("" for the first, which the run's task began) and the step it
// began at. known is false when that message is not in the trace (the
// trace's older part is archived).
func TurnOf(t Trace, i int) (began string, since int, known bool) {
	for j := i; j >= 0; j-- {
		if n := t.At(j); beginsTurn(t, n) {
			return n.ID, n.Step, true
		}
	}
	return "", 0, !t.Archived()
}

// beginsTurn says whether a node is a message that began a turn: taken
// after an answer (a message taken mid-turn follows a step instead).
func beginsTurn(t Trace, n Node) bool {
	if n.Kind != signals.KindTask || n.Status != signals.StatusCompleted || len(n.Parents) != 1 {
		return false
	}
	if _, ok := Message(n.Args); !ok {
		return false
	}
	i := t.Index(n.Parents[0])
	if i < 0 {
		return false
	}
	p := t.At(i)
	return p.Kind == signals.KindOutput && p.Status == signals.StatusCompleted
}

// Message is the text of a conversation's message node, from its args.
func Message(args json.RawMessage) (string, bool) {
	var m struct {
		Message *string `json:"message"`
	}
	if json.Unmarshal(args, &m) == nil && m.Message != nil {
		return *m.Message, true
	}
	return "", false
}
