package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/runmsg"
)

// send delivers a message in (reply, approve, edit): as a signal, fire and
// forget, saying so; or as an update, whose answer decodes into result.
// An update's refusal or failure is returned as is for the caller to word.
func (c *cli) send(ctx context.Context, cmd *cobra.Command, workflowID, runID, name string, signal bool, req, result any) error {
	tc, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	return sendWith(ctx, tc, cmd, workflowID, runID, name, signal, req, result)
}

// sendWith is send over a client the caller dialled already (it read the
// run to sign the message).
func sendWith(ctx context.Context, tc client.Client, cmd *cobra.Command, workflowID, runID, name string, signal bool, req, result any) error {
	if signal {
		ctx, cancel := context.WithTimeout(ctx, runmsg.UpdateTimeout)
		defer cancel()
		if err := tc.SignalWorkflow(ctx, workflowID, runID, name, req); err != nil {
			return fmt.Errorf("signal %s to %s: %w", name, workflowID, runmsg.ClosedError(ctx, tc, workflowID, runID, name, err))
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s signal sent to %s (see `unstuck trace %s` for what it did)\n", name, workflowID, workflowID)
		return nil
	}
	return runmsg.Update(ctx, tc, workflowID, runID, name, req, result)
}
