package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/unstuck-dev/unstuck/signals"
)

func newStatusCmd(c *cli) *cobra.Command {
	var runID string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status WORKFLOW_ID",
		Short: "Show where a run is: phase, step, pending approvals, breakers, loops, unverified calls",
		Long: `Query a run's status (the "status" query of AgentWorkflow) and print its
agent, phase, step, generation, the outage it waits out (phase
waiting_outage: the tool that is down, since when, the next probe), last
error, pending approvals, circuit breakers, detected loops, handoff path
and how many calls failed their check (unverified). Works on running and
closed runs while a worker is polling the task queue. --json prints the
answer as is.

Equivalent temporal command:
  temporal workflow query --workflow-id WORKFLOW_ID --name status`,
		Example: `  unstuck status travel-20240115-093000-1a2b3c
  unstuck status travel-20240115-093000-1a2b3c --json | jq .pending_approvals`,
		Args: oneWorkflowID,
		RunE: func(cmd *cobra.Command, args []string) error {
			var st signals.Status
			if err := c.query(cmd.Context(), args[0], runID, signals.QueryStatus, &st); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), st)
			}
			return renderStatus(cmd.OutOrStdout(), st, time.Now())
		},
	}
	cmd.Flags().StringVar(&runID, "run-id", "", "run id (default: the latest run of the workflow id)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status query answer as JSON")
	return cmd
}
