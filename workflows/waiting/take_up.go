package waiting

import (
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// ExpectCarried, as a generation that continued while waiting starts
// (before its first message is taken), puts back what it waits for: the
// calls waiting for approval or the human node, each wait's start, and
// the decisions and reply already accepted. An approval or a reply that
// reached the run between generations lands as it would have in the one
// before, instead of being refused as waited for by nothing.
func (w *Waits[S]) ExpectCarried() {
	c, rung := w.run.Carried()
	if c == nil {
		return
	}
	for _, id := range c.waitingNodes() {
		if n := w.run.Node(id); n != nil && n.Kind == signals.KindCall && n.Status == signals.StatusAwaitingApproval {
			w.people.WaitApproval(id, n.AskedTool())
			w.people.KeepEscalations(id, c.Escalations[id])
		}
	}
	if c.Human != "" {
		w.people.WaitAgainAt(c.Human, rung)
		w.people.KeepEscalations(c.Human, c.Escalations[c.Human])
	}
	// Copying into maps: the order does not matter.
	//workflowcheck:ignore
	for id, since := range c.Since {
		w.starts.Keep(id, since)
	}
	//workflowcheck:ignore
	for id, d := range c.Decisions {
		w.people.Decide(id, d)
	}
	//workflowcheck:ignore
	for id, approved := range c.Approved {
		w.people.KeepApproved(id, approved)
	}
	if c.Reply != nil {
		w.people.KeepReply(c.Reply)
	}
	if b := c.Budget; b != nil {
		if n := w.run.Node(b.Node); n != nil && n.Kind == signals.KindBudget && n.Status == signals.StatusPending {
			w.run.Budget().TakeCarried(b)
		}
	}
}

// TakeHeldHuman, as a person agent's generation starts, takes the wait it
// continued as new in, if it did (its node: ExpectCarried).
func (w *Waits[S]) TakeHeldHuman() {
	if c, _ := w.run.Carried(); c != nil {
		w.run.DropResume()
	}
}

// HeldHuman is the human node carried over, still waiting, once.
func (w *Waits[S]) HeldHuman() *trace.Node {
	id := w.people.TakeHeld()
	if id == "" {
		return nil
	}
	if n := w.run.Node(id); n != nil && n.Kind == signals.KindHuman && n.Status == signals.StatusPending {
		return n
	}
	return nil
}
