package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/signals"
)

// ForkSourceError is the application error type of a fork whose source
// cannot be read: no such workflow, or not a run of unstuck.
const ForkSourceError = "ForkSource"

// ReadRun reads another run for a fork: the whole run as the source's own
// workflow code holds it (query signals.QueryRun), gzip-compressed JSON.
// A closed run answers too: a worker replays its history to answer.
func (a *Activities) ReadRun(ctx context.Context, workflowID string) ([]byte, error) {
	return a.readRun(ctx, RunRef{WorkflowID: workflowID})
}

// RunRef names one run of a workflow (empty RunID: its latest).
type RunRef struct {
	WorkflowID string `json:"workflow_id"`
	RunID      string `json:"run_id,omitempty"`
}

// ReadRunAt reads one run of a workflow for a fork, as ReadRun: a
// generation of a long run holds the nodes later ones no longer carry.
func (a *Activities) ReadRunAt(ctx context.Context, ref RunRef) ([]byte, error) {
	return a.readRun(ctx, ref)
}

func (a *Activities) readRun(ctx context.Context, ref RunRef) ([]byte, error) {
	workflowID := ref.WorkflowID
	val, err := a.querier.QueryWorkflow(ctx, workflowID, ref.RunID, signals.QueryRun)
	if err != nil {
		var notFound *serviceerror.NotFound
		var failed *serviceerror.QueryFailed
		switch {
		case errors.As(err, &notFound):
			return nil, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("from.workflow_id: no workflow %q%s in this namespace", workflowID, runSuffix(ref.RunID)), ForkSourceError, nil)
		case errors.As(err, &failed) && strings.Contains(err.Error(), signals.RunStarting):
			// Between two generations (or just started): asked again.
			return nil, fmt.Errorf("run %s is starting, read again: %w", workflowID, err)
		case errors.As(err, &failed) && strings.Contains(err.Error(), "unknown queryType"):
			return nil, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("from.workflow_id: %q is not a run of unstuck (it answers no %s query)", workflowID, signals.QueryRun), ForkSourceError, nil)
		case errors.As(err, &failed):
			return nil, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("from.workflow_id: run %q cannot be read: %v", workflowID, err), ForkSourceError, nil)
		}
		return nil, fmt.Errorf("reading run %s: %w", workflowID, err)
	}
	var packed []byte
	if err := val.Get(&packed); err != nil {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("from.workflow_id: run %q answered something that is not a run: %v", workflowID, err), ForkSourceError, nil)
	}
	return packed, nil
}

func runSuffix(runID string) string {
	if runID == "" {
		return ""
	}
	return " with run id " + runID
}
