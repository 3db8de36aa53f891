package policies

import "time"

// WaitView is what a run knows while it waits for a person (an approval
// or a reply), to decide whether to continue as new in the middle of the
// wait instead of only between steps.
type WaitView struct {
	ContinueAsNewSuggested bool // Temporal's history is getting long
	// Waiting: the run waits for people only, in waits it can carry into
	// its next generation (calls held for approval, a human node, a budget
	// rung), in either run shape.
	Waiting bool
	// Streaming: a model reply is still streaming (its request is in flight).
	Streaming bool
	// Interrupting: an edit or a person's handoff waits to be carried out;
	// it continues the run as new itself.
	Interrupting bool
	// Closing: the run already ends or continues as new.
	Closing bool
}

// ContinueWhileWaiting says whether a waiting run continues as new now:
// Temporal suggests it and the run waits only for people. A wait can be
// long and every signal grows the history, so waiting for the next step
// (which only the person can bring) would let a flood of signals reach
// the server's history limit, where the run is terminated.
func ContinueWhileWaiting(v WaitView) bool {
	return v.ContinueAsNewSuggested && v.Waiting && !v.Streaming && !v.Interrupting && !v.Closing
}

// WaitLeft is how much of a person's timeout is left after waited: a wait
// carried into a new generation keeps its deadline, so continuing as new
// never extends it. expired when nothing is left.
func WaitLeft(timeout, waited time.Duration) (left time.Duration, expired bool) {
	if waited < 0 {
		waited = 0
	}
	left = timeout - waited
	return left, left <= 0
}
