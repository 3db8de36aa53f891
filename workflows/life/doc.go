// Package life owns the run's life within one generation: whether it is
// starting, running, switching (continuing as new while it waits for
// people), interrupted (an edit or a person's handoff waits to be carried
// out), handing over, closing (continuing as new) or ended.
//
// It is modelled as go.temporal.io/sdk models a command's life
// (internal/internal_command_state_machine.go): unexported state, methods
// that ask, and transitions that each name the states they may be taken
// from and refuse any other with an error naming the transition and the
// state, instead of setting a flag whatever the state. The parts of the
// life that really overlap are kept as such: a switch stays on while an
// edit that came during it is carried out, a person's handoff is
// interrupting while the handoff is carried out, and an edit accepted
// before the run closes is still the edit accepted (refusals name it).
// State says which of them tells most.
//
// NotRun is why a node of the trace did not run because of the run's
// life (an edit, a person's handoff, a message that cut in), so nothing
// reads it from a node's error text.
package life
