package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
)

// updateTimeout bounds waiting for a run to answer an update.
const updateTimeout = 30 * time.Second

// send delivers a message in (reply, approve, edit): as a signal, fire and
// forget, saying so; or as an update, whose answer decodes into result.
// An update's refusal or failure is returned as is for the caller to word.
func (c *cli) send(ctx context.Context, cmd *cobra.Command, workflowID, runID, name string, signal bool, req, result any) error {
	tc, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	ctx, cancel := context.WithTimeout(ctx, updateTimeout)
	defer cancel()
	if signal {
		if err := tc.SignalWorkflow(ctx, workflowID, runID, name, req); err != nil {
			return fmt.Errorf("signal %s to %s: %w", name, workflowID, err)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s signal sent to %s (see `unstuck trace %s` for what it did)\n", name, workflowID, workflowID)
		return nil
	}
	h, err := tc.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: workflowID, RunID: runID, UpdateName: name,
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return err
	}
	return h.Get(ctx, result)
}
