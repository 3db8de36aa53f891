package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"
)

// startWait bounds how long an update that came while the run starts
// waits for it. A start resolves its agent (at most five attempts of 30 s)
// or verifies the state it carried; one slower than this is stuck, and
// the update says so rather than hold its caller longer.
const startWait = 5 * time.Minute

// handlers is the run as its update handlers meet it: an update may come
// before the run has its state, or in the workflow task that closes it.
type handlers struct{ r *runner }

// whenReady, called first by every update's handler, notes the workflow
// task that took the update (closeApart), and lets the update wait for the
// run's state. A run that has it goes on at once (its validator checked the
// update against it). One that is starting is waited for, bounded by
// startWait; then wanted checks what the validator could not, against the
// state the run now has. A run that failed to start answers its failure.
func (h handlers) whenReady(ctx workflow.Context, name string, wanted func() error) error {
	r := h.r
	r.acceptedIn = taskOf(ctx)
	if r.run != nil {
		return nil
	}
	if err := h.awaitStart(ctx, name); err != nil {
		return err
	}
	return wanted()
}

// awaitStart waits until the run has started or failed to.
func (h handlers) awaitStart(ctx workflow.Context, name string) error {
	r := h.r
	if versionOf(ctx, versionUpdatesWait, 1) < 1 {
		// As recorded before: only a message came here, and waited
		// without bound.
		if err := workflow.Await(ctx, func() bool { return r.run != nil || r.life.Ended() }); err != nil {
			return err
		}
	} else {
		started := func() bool { return r.run != nil || r.startFailed != "" }
		// A timer of its own, cancelled once the run has started: the
		// SDK's AwaitWithTimeout leaves its timer to fire.
		tctx, cancelTimer := workflow.WithCancel(ctx)
		defer cancelTimer()
		timer := workflow.NewTimer(tctx, startWait)
		if err := workflow.Await(ctx, func() bool { return started() || timer.IsReady() }); err != nil {
			return err
		}
		if !started() {
			return fmt.Errorf("%s: the run has not started within %s (it still resolves its agent or verifies the state it carried): send it again once its status answers", name, startWait)
		}
	}
	if err := h.startError(name); err != nil {
		return err
	}
	if r.run == nil {
		return fmt.Errorf("%s: the run could not start", name)
	}
	return nil
}

// startError is the answer to an update of a run that failed to start:
// why it failed. Nil while the run starts or once it has.
func (h handlers) startError(name string) error {
	r := h.r
	if r.startFailed == "" {
		return nil
	}
	return fmt.Errorf("%s: %w", name, notStarted(r.startFailed))
}

// answerWaiting, when the run failed to start, lets the updates that
// waited for it answer its failure before the run closes.
func (h handlers) answerWaiting(ctx workflow.Context) {
	if ctx.Err() != nil || workflow.AllHandlersFinished(ctx) || versionOf(ctx, versionUpdatesWait, 1) < 1 {
		return
	}
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
}

// closeApart ends the workflow task before the run closes in the task that
// took an update. The server refuses a close while events came during the
// task (UnhandledCommand) and fails the task, and with it an update first
// delivered in it ("unexpected workflow task failure"), however the run
// answered it; a close in a task of its own loses no answer.
func (h handlers) closeApart(ctx workflow.Context) error {
	r := h.r
	if ctx.Err() != nil || r.acceptedIn != taskOf(ctx) ||
		versionOf(ctx, versionUpdatesWait, 1) < 1 {
		return nil
	}
	if err := workflow.Sleep(ctx, time.Millisecond); err != nil {
		return err
	}
	return workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
}

// answerApart, as an update's handler answers, holds an answer given while
// the run closes in the workflow task that took the update until the next
// task, the one that closes the run (closeApart says why a close shares no
// task with an update's first delivery). The answer then reaches its
// caller with the close: a client told an edit's or a handoff's answer
// finds the next generation running.
func (h handlers) answerApart(ctx workflow.Context) {
	r := h.r
	if ctx.Err() != nil || r.run == nil || !r.life.Closing() || r.acceptedIn != taskOf(ctx) ||
		versionOf(ctx, versionUpdatesWait, 1) < 1 {
		return
	}
	_ = workflow.Sleep(ctx, time.Millisecond)
}

// taskOf names the workflow task under way: its history length, plus one
// so that 0 names none.
func taskOf(ctx workflow.Context) int {
	return workflow.GetInfo(ctx).GetCurrentHistoryLength() + 1
}
