package main

import (
	"context"
	"fmt"
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

// traceQuery asks a run's trace query with args (none, or a TracePage).
type traceQuery func(ctx context.Context, out *signals.Trace, args ...any) error

// maxTracePages bounds the pages of one trace, against a run that would
// answer next forever: MaxTracePageLimit nodes each, far beyond any run.
const maxTracePages = 10_000

// pageTrace reads a whole trace, page by page. The first query has no
// argument, as every caller of earlier versions asked: a run answers every
// node when they fit in one answer (a run of an earlier version always
// does), else the first page and next. The following pages are asked from
// next with the largest limit; each answer stays under the run's byte
// bound (signals.MaxQueryAnswerBytes) anyway.
func pageTrace(ctx context.Context, ask traceQuery) (signals.Trace, error) {
	var tr signals.Trace
	if err := ask(ctx, &tr); err != nil {
		return signals.Trace{}, err
	}
	for pages := 1; tr.Next != ""; pages++ {
		since := tr.Next
		if pages >= maxTracePages {
			return signals.Trace{}, fmt.Errorf("the trace is still not whole after %d pages (next %q)", pages, since)
		}
		var page signals.Trace
		if err := ask(ctx, &page, signals.TracePage{Since: since, Limit: signals.MaxTracePageLimit}); err != nil {
			return signals.Trace{}, err
		}
		if page.Next == since || (len(page.Nodes) == 0 && page.Next != "") {
			return signals.Trace{}, fmt.Errorf("the trace page after %q does not advance (next %q)", since, page.Next)
		}
		tr.Nodes = append(tr.Nodes, page.Nodes...)
		tr.Generation = page.Generation // the run may have continued as new meanwhile
		tr.Next = page.Next
	}
	return tr, nil
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
			tr, err := pageTrace(cmd.Context(), func(ctx context.Context, out *signals.Trace, qargs ...any) error {
				return c.queryWith(ctx, tc, id, runID, signals.QueryTrace, out, qargs...)
			})
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
