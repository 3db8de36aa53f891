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
step and output, with its parents. A long trace comes in pages (the query's
{"since", "limit"} argument and "next"), all of them read and shown as one.
A long run no longer carries its oldest nodes: its answer names the earlier
generation (a closed run) that holds them ("archived"), which is read too,
so the whole run is shown.

The node ids (n1, n2, ...) are what "unstuck edit" and "unstuck fork" take
as --node, and a waiting call's id is approve's --call-id. Nodes an edit or
a rollback replaced stay in the trace with status invalidated; the run no
longer reads them.

Formats:
  table    one row per node: id, kind, status, agent, tool, parents, time
           and a one-line summary of its error, output or args (an edit:
           by whom, why, before -> after; a write answered with an earlier
           call's recorded result: "reused <id>"); the first line counts
           the invalidated nodes, and the edits follow the table in full
  json     the query answer, indented
  mermaid  a "flowchart TD" graph, coloured by status; paste it into a
           Markdown file or https://mermaid.live

Equivalent temporal command (one page; while the answer has "next", ask
again with --input '{"since": "<next>", "limit": 5000}'):
  temporal workflow query --workflow-id WORKFLOW_ID --name trace`,
		Example: `  unstuck trace travel-20240115-093000-1a2b3c
  unstuck trace travel-20240115-093000-1a2b3c --format json | jq '.nodes[] | select(.status == "failed")'
  unstuck trace travel-20240115-093000-1a2b3c --format mermaid > trace.mmd
  unstuck trace travel-20240115-093000-1a2b3c --format json | jq -r '.nodes[] | select(.kind == "call") | .id + " " + .tool'`,
		Args: oneWorkflowID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(traceFormats, format) {
				return usageErrorf("unknown --format %q: use one of %s", format, strings.Join(traceFormats, ", "))
			}
			tc, err := c.client(cmd.Context())
			if err != nil {
				return err
			}
			defer tc.Close()
			id := args[0]
			tr, err := c.wholeTrace(cmd.Context(), tc, id, runID)
			if err != nil {
				return err
			}
			return renderTrace(format, cmd.OutOrStdout(), tr)
		},
	}
	cmd.Flags().StringVar(&runID, "run-id", "", "run id (default: the latest run of the workflow id)")
	cmd.Flags().StringVar(&format, "format", "table", "output format: "+strings.Join(traceFormats, ", "))
	return cmd
}
