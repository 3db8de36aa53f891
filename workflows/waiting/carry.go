package waiting

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// Continue continues the run as new, carrying what it waits for: the
// calls of step s held for approval, a human node (a person agent's, a
// graph's, the ladder's human rung's), the task node a conversation waits
// at, or a budget rung.
func (w *Waits[S]) Continue(ctx workflow.Context, s S) error {
	live(w.life.Close())
	next := w.run.Generation() + 1
	w.run.AnswerContinued(ctx, next)
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	// Signals that reached the run in this task are taken as they would
	// have been a moment earlier (an approval among them is carried),
	// not ignored as arriving between generations.
	w.run.TakeBufferedSignals(ctx)
	c := w.carried(s)
	workflow.GetLogger(ctx).Info("continuing as new while waiting", "waiting", len(c.Since), "generation", next)
	return w.run.ContinueAsNew(ctx, s, c)
}

// carried is what the run waits for now, with step s.
func (w *Waits[S]) carried(s S) Carried {
	human := s.HumanNode()
	c := Carried{Since: map[string]time.Time{}, Decisions: map[string]*signals.ApproveRequest{}, Escalations: map[string]int{}, Human: human}
	for _, id := range w.people.Approvals() {
		c.Since[id] = w.starts.Since(id)
		if d := w.people.Decision(id); d != nil {
			c.Decisions[id] = d
		}
		if level := w.people.Escalations(id); level > 0 {
			c.Escalations[id] = level
		}
		if approved := w.people.Approved(id); len(approved) > 0 {
			if c.Approved == nil {
				c.Approved = map[string][]*signals.ApproveRequest{}
			}
			c.Approved[id] = approved
		}
	}
	if human != "" {
		c.Since[human] = w.starts.Since(human)
		c.Reply = w.people.Reply()
		if level := w.people.Escalations(human); level > 0 {
			c.Escalations[human] = level
		}
	}
	if turn := s.TurnNode(); turn != "" {
		c.Since[turn] = w.starts.Since(turn)
	}
	for id, since := range w.run.Parked() {
		c.Since[id] = since
	}
	if b := w.run.Budget().Carried(); b != nil {
		c.Since[b.Node] = w.starts.Since(b.Node)
		c.Budget = b
	}
	return c
}
