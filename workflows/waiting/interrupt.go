package waiting

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/workflows/life"
)

// InterruptedWhile says what ended a wait for a person (a budget rung's)
// before anyone decided.
func (w *Waits[S]) InterruptedWhile() string {
	if w.life.Pending() == life.Handoff {
		return "a person handed the run over while it waited"
	}
	return "a person edited the run while it waited"
}

// AwaitOrInterrupt waits for a future, or for an edit (or a
// conversation's message that cuts in) to interrupt the wait; it answers
// whether the future is ready. On a cancelled run it answers at once, and
// the caller's Get reports the cancellation.
func (w *Waits[S]) AwaitOrInterrupt(ctx workflow.Context, f workflow.Future) bool {
	_ = workflow.Await(ctx, func() bool { return f.IsReady() || w.life.Interrupting() || w.run.CutsIn() })
	return f.IsReady() || ctx.Err() != nil
}
