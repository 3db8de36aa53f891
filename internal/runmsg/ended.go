package runmsg

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/signals"
)

// endedTimeout bounds learning how a closed run ended: a describe, and a
// query a worker answers by replaying the run.
const endedTimeout = 5 * time.Second

// Ended says, in one line, how a run that is closed ended ("failed at its
// start: unknown agent ...", "completed", "was terminated: ..."); ok is
// false while it runs, or when it cannot be learned.
func Ended(ctx context.Context, tc client.Client, workflowID, runID string) (how string, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, endedTimeout)
	defer cancel()
	desc, err := tc.DescribeWorkflowExecution(ctx, workflowID, runID)
	if err != nil {
		return "", false
	}
	info := desc.GetWorkflowExecutionInfo()
	status := info.GetStatus()
	switch status {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED:
		return "", false
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return "completed", true
	case enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return "continued as new (the run that follows it takes messages)", true
	}
	if status == enumspb.WORKFLOW_EXECUTION_STATUS_FAILED {
		if _, err := Status(ctx, tc, workflowID, info.GetExecution().GetRunId()); err != nil {
			if why, failed := signals.FailedToStart(err); failed {
				return "failed at its start: " + why, true
			}
		}
	}
	ended := map[enumspb.WorkflowExecutionStatus]string{
		enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:     "failed",
		enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED: "was terminated",
		enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:   "was cancelled",
		enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:  "timed out",
	}[status]
	if ended == "" {
		ended = "closed (" + status.String() + ")"
	}
	if why := failureOf(ctx, tc, workflowID, info.GetExecution().GetRunId()); why != "" {
		ended += ": " + why
	}
	return ended, true
}

// failureOf is what the closed run's failure says, at its root (the
// run's own words, not the SDK's wrapping), "" when it says nothing.
func failureOf(ctx context.Context, tc client.Client, workflowID, runID string) string {
	err := tc.GetWorkflow(ctx, workflowID, runID).Get(ctx, nil)
	var app *temporal.ApplicationError
	var term *temporal.TerminatedError
	switch {
	case err == nil, errors.As(err, &term):
		return ""
	case errors.As(err, &app):
		return app.Message()
	}
	for next := errors.Unwrap(err); next != nil; next = errors.Unwrap(next) {
		err = next
	}
	return err.Error()
}

// ClosedError says that the run workflowID, closed, took no name: how it
// ended, in place of the server's "workflow execution already completed"
// (a NotFound). Any other error is answered as it is.
func ClosedError(ctx context.Context, tc client.Client, workflowID, runID, name string, err error) error {
	var notFound *serviceerror.NotFound
	if !errors.As(err, &notFound) {
		return err
	}
	how, ok := Ended(context.WithoutCancel(ctx), tc, workflowID, runID)
	if !ok {
		return err
	}
	return closedRun{msg: fmt.Sprintf("run %s %s: it takes no %s", workflowID, how, name), err: err}
}

// closedRun is the server's refusal of a message to a closed run (err,
// which callers may still ask for), worded as how the run ended.
type closedRun struct {
	msg string
	err error
}

func (e closedRun) Error() string { return e.msg }
func (e closedRun) Unwrap() error { return e.err }
