package workflows

import (
	"errors"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
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

// interruptedWhile says what ended a wait for a person (a budget rung's)
// before anyone decided.
func (r *runner) interruptedWhile() string {
	if r.life.Pending() == life.Handoff {
		return "a person handed the run over while it waited"
	}
	return "a person edited the run while it waited"
}

// awaitOrInterrupt waits for a future, or for an edit (or a
// conversation's message that cuts in: turn.go) to interrupt the wait; it
// answers whether the future is ready. On a cancelled run it answers at
// once, and the caller's Get reports the cancellation.
func (r *runner) awaitOrInterrupt(ctx workflow.Context, f workflow.Future) bool {
	_ = workflow.Await(ctx, func() bool { return f.IsReady() || r.life.Interrupting() || r.chat().CutsIn() })
	return f.IsReady() || ctx.Err() != nil
}

// notRun says a call failed only because an edit interrupted its step
// before it ran: for the edit it has not finished, so it runs again.
func notRun(n *Node) bool {
	return n.Kind == signals.KindCall && n.Status == signals.StatusFailed && n.NotRun.Again()
}
