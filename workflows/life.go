package workflows

// live carries out a transition of the run's life (package life). One
// the life refuses is a fault of the run's code, not of what a person
// sent (every message is checked against the life before it is taken):
// like Temporal's own state machines, it fails the workflow task with
// the transition and the state named, and the run stops there.
func live(err error) {
	if err != nil {
		panic(err)
	}
}
