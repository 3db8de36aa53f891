package main

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/unstuck-dev/unstuck/signals"
)

// traceFormats are the --format values of `unstuck trace`, in the order
// the help lists them.
var traceFormats = []string{"table", "json", "mermaid"}

func renderTrace(format string, w io.Writer, tr signals.Trace) error {
	switch format {
	case "json":
		return printJSON(w, tr)
	case "mermaid":
		return renderMermaid(w, tr)
	default:
		return renderTable(w, tr)
	}
}

func newTraceCmd(c *cli) *cobra.Command {
	var runID, format string
	cmd := &cobra.Command{
		Use:   "trace WORKFLOW_ID",
		Short: "Show everything a run did, as a table, JSON or a Mermaid graph",
		Long: `Query a run's trace (the "trace" query of AgentWorkflow): one node per task,
model request, tool call, repair, escalation, approval, edit, handoff, human
step and output, with its parents.

Formats:
  table    one row per node: id, kind, status, agent, tool, parents, time
           and a one-line summary of its error, output or args
  json     the query answer, indented
  mermaid  a "flowchart TD" graph, coloured by status; paste it into a
           Markdown file or https://mermaid.live

Equivalent temporal command:
  temporal workflow query --workflow-id WORKFLOW_ID --name trace`,
		Example: `  unstuck trace travel-20240115-093000-1a2b3c
  unstuck trace travel-20240115-093000-1a2b3c --format json | jq '.nodes[] | select(.status == "failed")'
  unstuck trace travel-20240115-093000-1a2b3c --format mermaid > trace.mmd`,
		Args: oneWorkflowID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(traceFormats, format) {
				return usageErrorf("unknown --format %q: use one of %s", format, strings.Join(traceFormats, ", "))
			}
			var tr signals.Trace
			if err := c.query(cmd.Context(), args[0], runID, signals.QueryTrace, &tr); err != nil {
				return err
			}
			return renderTrace(format, cmd.OutOrStdout(), tr)
		},
	}
	cmd.Flags().StringVar(&runID, "run-id", "", "run id (default: the latest run of the workflow id)")
	cmd.Flags().StringVar(&format, "format", "table", "output format: "+strings.Join(traceFormats, ", "))
	return cmd
}
