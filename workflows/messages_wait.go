package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// startWait bounds how long an update that came while the run starts
// waits for it. A start resolves its agent (at most five attempts of 30 s)
// or verifies the state it carried; one slower than this is stuck, and
// the update says so rather than hold its caller longer.
const startWait = 5 * time.Minute

// whenReady, in an update's handler, lets the update wait for the run's
// state. A run that has it goes on at once (its validator checked the
// update against it). One that is starting is waited for, bounded by
// startWait; then wanted checks what the validator could not, against the
// state the run now has. A run that failed to start answers its failure.
func (r *runner) whenReady(ctx workflow.Context, name string, wanted func() error) error {
	if r.run != nil {
		return nil
	}
	if err := r.awaitStart(ctx, name); err != nil {
		return err
	}
	return wanted()
}

// awaitStart waits until the run has started or failed to.
func (r *runner) awaitStart(ctx workflow.Context, name string) error {
	if versionOf(ctx, versionUpdatesWait, 1) < 1 {
		// As recorded before: only a message came here, and waited
		// without bound.
		if err := workflow.Await(ctx, func() bool { return r.run != nil || r.life.Ended() }); err != nil {
			return err
		}
	} else {
		started, err := workflow.AwaitWithTimeout(ctx, startWait, func() bool { return r.run != nil || r.startFailed != "" })
		if err != nil {
			return err
		}
		if !started {
			return fmt.Errorf("%s: the run has not started within %s (it still resolves its agent or verifies the state it carried): send it again once its status answers", name, startWait)
		}
	}
	if err := r.startError(name); err != nil {
		return err
	}
	if r.run == nil {
		return fmt.Errorf("%s: the run could not start", name)
	}
	return nil
}

// startError is the answer to an update of a run that failed to start:
// why it failed. Nil while the run starts or once it has.
func (r *runner) startError(name string) error {
	if r.startFailed == "" {
		return nil
	}
	return fmt.Errorf("%s: %s: %s", name, signals.RunFailedToStart, r.startFailed)
}

// answerWaiting, when the run failed to start, lets the updates that
// waited for it answer its failure before the run closes.
func (r *runner) answerWaiting(ctx workflow.Context) {
	if ctx.Err() != nil || workflow.AllHandlersFinished(ctx) || versionOf(ctx, versionUpdatesWait, 1) < 1 {
		return
	}
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
}
