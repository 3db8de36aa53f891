package runmsg

import (
	"context"
	"strings"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/signals"
)

// UpdateTimeout bounds waiting for a run to answer an update.
const UpdateTimeout = 30 * time.Second

// Update sends the update name with req to a run (runID empty: the
// latest run of workflowID), waits until the run has answered, and
// decodes the answer into result. The run's refusal (its validator's
// rejection) or the handler's error is returned as is, for the caller to
// word; its message is the run's own. A refusal because the run is
// closing (signals.RunClosing: it continues as new) is sent again, every
// 100 ms within UpdateTimeout: the next generation takes it. An update
// to a run that is closed says how the run ended (Ended).
func Update(ctx context.Context, tc client.Client, workflowID, runID, name string, req, result any) error {
	ctx, cancel := context.WithTimeout(ctx, UpdateTimeout)
	defer cancel()
	for {
		err := update(ctx, tc, workflowID, runID, name, req, result)
		if err == nil {
			return nil
		}
		if !strings.Contains(err.Error(), signals.RunClosing) {
			return ClosedError(ctx, tc, workflowID, runID, name, err)
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func update(ctx context.Context, tc client.Client, workflowID, runID, name string, req, result any) error {
	h, err := tc.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: workflowID, RunID: runID, UpdateName: name,
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return err
	}
	return h.Get(ctx, result)
}
