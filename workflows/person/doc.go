// Package person is a run's waits for a person: the calls waiting for a
// person's approval and the decisions that landed for them, the human
// node waiting for a person's reply (a graph's human node, the ladder's
// human rung, an agent of kind human), and the one way all of them wait
// (Wait, which a budget rung and a conversation's next message share).
//
// Waits owns that state for one generation (State, kept by the runner,
// its fields unexported): what waits, and what a person answered that the
// waiting code has not taken yet. A run that continues as new while it
// waits carries it over through the run's switch, which reads and puts it
// back with the methods of carry.go.
//
// What the waits need of the run (its spec and trace, its phase, its
// gates, the run's life and the clocks of its waits, and the ends a
// person agent's reply leads to) they ask through Host, which the runner
// implements (workflows/person.go), so the package never imports
// workflows. An edit or a person's handoff whose update the run could not
// carry out is answered here too (AnswerPending): the person who sent it
// learns why instead of waiting for ever.
package person
