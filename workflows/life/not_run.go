package life

// NotRun is why a node did not run because of the run's life ("" when it
// ran, or failed for a reason of its own).
type NotRun string

const (
	// Interrupted: a call a person's edit stopped before it ran.
	Interrupted NotRun = "interrupted"
	// HandedOver: a call a person's handoff stopped before it ran.
	HandedOver NotRun = "handed_over"
	// NeverRan: a call that waited on calls that did not finish.
	NeverRan NotRun = "never_ran"
	// CutIn: a model request a conversation's message cut short.
	CutIn NotRun = "cut_in"
)

// Stops is why a call the pending interruption stops does not run: a
// person's handoff, or an edit.
func (l *Life) Stops() NotRun {
	if l.Pending() == Handoff {
		return HandedOver
	}
	return Interrupted
}

// Again: a call that did not run for this reason has not finished, for
// an edit: it runs again.
func (n NotRun) Again() bool {
	return n == Interrupted || n == HandedOver || n == NeverRan
}
