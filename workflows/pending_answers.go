package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// A run closes, or continues as new, only once every update handler has
// finished. An edit or a handoff whose update was accepted waits for the
// run to carry it out; the run takes it at its next wait, but something
// else may take the run first: a person's reply that reached it in the
// same workflow task completes the run, or hands it back to the agent
// before. Such an update is answered here, saying why it was not carried
// out, instead of waiting for ever (and the run with it).

// answerPending answers the edit or handoff update that waits and was not
// carried out: why says what the run did instead, next what the sender
// may do now.
func (r *runner) answerPending(ctx workflow.Context, why, next string) {
	ph := r.handing
	pending := r.life.Pending()
	editWaits := pending == life.Edit && r.edit().Waits()
	handoffWaits := pending == life.Handoff && ph.wait
	if !editWaits && !handoffWaits {
		return
	}
	if versionOf(ctx, versionAnswerPending, 1) < 1 {
		return // as runs recorded before: the handler waits
	}
	notCarried := func(name string) error {
		return fmt.Errorf("%s: not carried out: %s before it could be (both reached the run at once); %s", name, why, next)
	}
	if editWaits {
		r.edit().NotCarried(ctx, notCarried(signals.Edit))
	}
	if handoffWaits {
		ph.err = notCarried(signals.Handoff)
		live(r.life.Answer())
		workflow.GetLogger(ctx).Warn("handoff not carried out", "to", ph.req.To, "error", ph.err.Error())
	}
}

// endedWhy says how a run that closes ended, from its error.
func endedWhy(err error) string {
	var app *temporal.ApplicationError
	switch {
	case err == nil:
		return "the run completed"
	case errors.As(err, &app) && app.Type() == signals.StoppedErrorType:
		return "the run stopped"
	}
	return "the run ended"
}
