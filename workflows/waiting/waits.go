package waiting

import "github.com/unstuck-dev/unstuck/workflows/life"

// Waits are a run's waits for people in one generation, and the run they
// belong to. A view made for each use: the state lives where its pointers
// lead (the runner's Starts and life), so a copy of the runner never
// leaves Waits behind.
type Waits[S Step] struct {
	run    Host[S]
	people People
	starts *Starts
	life   *life.Life
}

// New is the waits of a run: the run, its waits for people, when each
// wait began, and the run's life.
func New[S Step](run Host[S], people People, starts *Starts, l *life.Life) *Waits[S] {
	return &Waits[S]{run: run, people: people, starts: starts, life: l}
}

// live carries out a transition of the run's life. One the life refuses
// is a fault of the run's code, not of what a person sent: it fails the
// workflow task, as the run's own transitions do.
func live(err error) {
	if err != nil {
		panic(err)
	}
}
