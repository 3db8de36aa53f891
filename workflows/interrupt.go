package workflows

import (
	"errors"
)

// An accepted edit interrupts the run at its next wait: the model request
// in flight is abandoned, calls waiting for approval or not yet started do
// not run, tool calls already running are waited for (so what they did is
// recorded, and the effect ledger knows of it), and the run then applies
// the edit and continues as new from the edited node (package edit).

// errInterrupted ends a step that an edit interrupted.
var errInterrupted = errors.New("interrupted by an edit")

// interruptedText is what a call that an edit stopped says.
const interruptedText = "not run: a person edited the run before it ran"

// handedOverText is what a call that a person's handoff stopped says: it
// is in the trace and, when no agent takes the run, in the conversation of
// the agent that goes on, which must not be told of an edit nobody made.
const handedOverText = "not run: a person handed the run over before it ran"
