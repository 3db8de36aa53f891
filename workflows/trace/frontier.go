package trace

import (
	"time"

	"github.com/unstuck-dev/unstuck/signals"
)

// The frontier is where the next step follows from. Each of its moves is
// named by why.

// Started: the run's first step follows from its task.
func (t *Trace) Started(task string) { t.follow(task) }

// Replied: the model replied to request req; its calls, or its output,
// follow from it.
func (t *Trace) Replied(req string) { t.follow(req) }

// Called: the next request follows from the step's calls (their results
// are what the model reads next).
func (t *Trace) Called(calls []string) { t.Frontier = calls }

// Visited: a graph's tool node ran; what follows, follows from it.
func (t *Trace) Visited(node string) { t.follow(node) }

// Refused: the output was refused (or answered nothing); the model is
// asked again after being told why.
func (t *Trace) Refused(output string) { t.follow(output) }

// Answered: a person replied at a human node.
func (t *Trace) Answered(human string) { t.follow(human) }

// TookMessage: a conversation's turn begins at the message taken.
func (t *Trace) TookMessage(task string) { t.follow(task) }

// EndedTurn: a conversation's turn ended with its output; the next
// message follows from it.
func (t *Trace) EndedTurn(output string) { t.follow(output) }

// Edited: the run goes on from the node an edit changed (when it does not
// resume the edited request's calls).
func (t *Trace) Edited(node string) { t.follow(node) }

// RolledBack: the escalation ladder rolled the run back; the nodes stale
// says no longer stand (see invalidate), and the next step follows from
// the rung's node.
func (t *Trace) RolledBack(rung string, at time.Time, stale func(*Node) bool) {
	for i := range t.Nodes {
		if n := &t.Nodes[i]; stale(n) {
			n.invalidate(at)
		}
	}
	t.follow(rung)
}

// RestartedTurn: a message cut in, and the turn under way starts again at
// its message (the node at index began): every node after it, but the
// messages, no longer stands. Unlike invalidate, their checkpoints stay
// until the next checkpoint drops them.
func (t *Trace) RestartedTurn(began int, at time.Time) {
	for j := began + 1; j < len(t.Nodes); j++ {
		n := &t.Nodes[j]
		if n.Kind == signals.KindTask || n.Status == signals.StatusInvalidated {
			continue
		}
		n.Status, n.At = signals.StatusInvalidated, at.UTC()
	}
	t.follow(t.Nodes[began].ID)
}

// HandedOver: the run was handed over to agent to at handoff node
// handoff: what was under way will not run, and the new agent's first
// step follows from the handoff.
func (t *Trace) HandedOver(handoff, to string, at time.Time) {
	for i := range t.Nodes {
		m := &t.Nodes[i]
		if m.Status == signals.StatusPending || m.Status == signals.StatusRunning || m.Status == signals.StatusAwaitingApproval {
			if m.ID != handoff {
				m.Status, m.Error, m.At = signals.StatusSkipped, "not run: the run was handed over to "+to, at
			}
		}
	}
	t.follow(handoff)
}

func (t *Trace) follow(node string) { t.Frontier = []string{node} }
