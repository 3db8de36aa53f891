package person

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// A run closes, or continues as new, only once every update handler has
// finished. An edit or a handoff whose update was accepted waits for the
// run to carry it out; the run takes it at its next wait, but something
// else may take the run first: a person's reply that reached it in the
// same workflow task completes the run, or hands it back to the agent
// before. Such an update is answered here, saying why it was not carried
// out, instead of waiting for ever (and the run with it).

// AnswerClosed answers the update that waits as the run closes with err
// (nil: completed).
func (p *Waits) AnswerClosed(ctx workflow.Context, err error) {
	p.answerPending(ctx, endedWhy(err), "the run is closed")
}

// AnswerContinued answers the update that waits as the run continues as
// new into generation.
func (p *Waits) AnswerContinued(ctx workflow.Context, generation int) {
	p.answerPending(ctx, fmt.Sprintf("the run continued as new into generation %d", generation), "send it again to the run that follows")
}

// answerPending answers the edit or handoff update that waits and was not
// carried out: why says what the run did instead, next what the sender
// may do now.
func (p *Waits) answerPending(ctx workflow.Context, why, next string) {
	update := p.host.Unanswered()
	if update == "" {
		return
	}
	if !p.host.Gate(ctx, GateAnswerPending) {
		return // as runs recorded before: the handler waits
	}
	p.host.NotCarried(ctx, update, fmt.Errorf("%s: not carried out: %s before it could be (both reached the run at once); %s", update, why, next))
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
