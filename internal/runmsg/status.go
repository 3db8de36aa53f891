package runmsg

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/signals"
)

// StatusTimeout bounds one run's status query.
const StatusTimeout = 10 * time.Second

// Status reads a run's status (runID "": its latest run), bounded by
// StatusTimeout: the one reader of the query for the inbox, a group's
// answer and a signature.
func Status(ctx context.Context, tc client.Client, workflowID, runID string) (signals.Status, error) {
	ctx, cancel := context.WithTimeout(ctx, StatusTimeout)
	defer cancel()
	var st signals.Status
	v, err := tc.QueryWorkflow(ctx, workflowID, runID, signals.QueryStatus)
	if err != nil {
		return st, fmt.Errorf("query status of %s: %w", workflowID, err)
	}
	if err := v.Get(&st); err != nil {
		return st, fmt.Errorf("decode the status of %s: %w", workflowID, err)
	}
	return st, nil
}
