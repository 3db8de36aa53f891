package waiting

import "go.temporal.io/sdk/workflow"

// Release settles the waits a switch held when an edit or a person's
// handoff (or a cancellation) takes the run instead: as without the
// switch, a budget rung is not decided, a human node is no longer waited
// at, and the step's held calls are settled by the run (Host.ReleaseCalls).
// No call stays listed as awaiting approval in a run that no longer waits
// for it.
func (w *Waits[S]) Release(ctx workflow.Context, s S) {
	if !w.life.Switching() {
		return
	}
	live(w.life.EndSwitch())
	w.run.Budget().Drop(ctx, "not decided: "+w.InterruptedWhile())
	if human := s.HumanNode(); human != "" && w.people.HumanNode() == human {
		w.people.EndReply()
		w.starts.Forget(human)
	}
	w.run.ReleaseCalls(ctx, s)
}
