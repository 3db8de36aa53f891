package workflows

import (
	"errors"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// stop ends the run cleanly with a report: the workflow fails with the
// application error AgentStopped, whose details are the report, so it is
// visible as such in the Web UI and `temporal workflow describe`.
func (r *runner) stop(ctx workflow.Context, reason string) error {
	_ = r.setPhase(ctx, signals.PhaseStopped)
	report := r.result(ResultStopped)
	report.Reason = reason
	return temporal.NewNonRetryableApplicationError("agent stopped: "+reason, signals.StoppedErrorType, nil, report)
}

// cancelled reports a cancellation of the run (temporal workflow cancel),
// which ends it as Canceled, never as a failure of the model or a tool.
func cancelled(ctx workflow.Context, err error) bool {
	return ctx.Err() != nil || temporal.IsCanceledError(err)
}

// cancelled settles the node that was running and the phase, on a context
// the cancellation does not reach, and answers the cancellation.
func (r *runner) cancelled(ctx workflow.Context, nodeID string) error {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	if nodeID != "" {
		r.run.Cancelled(nodeID, workflow.Now(dctx))
	}
	_ = r.setPhase(dctx, signals.PhaseStopped)
	return temporal.NewCanceledError("the run was cancelled")
}

// errorText is the message of an activity failure without Temporal's
// wrapping, so traces and the model read the tool's own words.
func errorText(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		return "timed out (" + timeout.TimeoutType().String() + "): " + timeout.Error()
	}
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) {
		return "canceled"
	}
	return err.Error()
}
