package workflows

import (
	"go.temporal.io/sdk/workflow"
)

// A step ends the same way in both run shapes, a free-form step (a model
// request and its calls) and a graph node's visit: what ends the run for
// the step comes first, in one order (a stop, the budget's stop, an edit
// or a person's handoff, a cancellation, a wait carried into the next
// generation), and only then does the shape choose what comes next (the
// model's reply, an edge).

// stepWaits is what a step may leave waiting for people when the run
// continues as new while it waits: the calls of its model request
// (reqID; "" for a graph tool node's call), and a human node.
type stepWaits struct {
	reqID string
	calls []*stepCall
	human string
	rung  *carriedRung // the ladder's human rung (its node is rung.human)
	turn  string       // the task node a conversation waits at for a message
}

// endOfStep says whether the run ends with the step, and how (err: a
// stop, errInterrupted for the edit to apply, a cancellation, a
// continue-as-new). stopErr is what the step itself ended with.
func (eng engine) endOfStep(ctx workflow.Context, w stepWaits, stopErr error) (bool, error) {
	r := eng.r
	switch {
	case stopErr != nil:
		return true, stopErr
	case r.budget().Stopped() != nil:
		return true, r.budget().Stopped()
	case r.life.Interrupting() && (ctx.Err() == nil || r.shape.interruptOutranksCancel(ctx)):
		r.waiting().Release(ctx, w)
		return true, errInterrupted
	case ctx.Err() != nil:
		r.waiting().Release(ctx, w)
		return true, r.cancelled(ctx, "")
	case r.life.Switching() && (heldCalls(w.calls) || w.human != ""):
		return true, r.waiting().Continue(ctx, w)
	}
	live(r.life.EndSwitch()) // nothing was left waiting: the next step goes on
	return false, nil
}

// afterRung ends a step whose loop a rung answered, in either shape: the
// run stops, continues as new (a rollback, a handoff, a human rung's wait
// carried), or goes on (ended false; a graph then takes the rung's exit,
// if it has one, or its next edge).
func (eng engine) afterRung(ctx workflow.Context, esc *escalation) (bool, error) {
	r := eng.r
	switch {
	case esc.stopErr != nil:
		return true, esc.stopErr
	case esc.held != nil:
		return true, r.waiting().Continue(ctx, stepWaits{human: esc.held.human, rung: esc.held})
	case esc.continueAsNew:
		return true, r.continueAsNew(ctx)
	}
	return false, nil
}
