package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/eval"
	"github.com/unstuck-dev/unstuck/internal/termtext"
	"github.com/unstuck-dev/unstuck/workflows"
)

// evalExportOptions are the flags of `unstuck eval export`.
type evalExportOptions struct {
	query, to, taskQueue string
}

func newEvalExportCmd(c *cli) *cobra.Command {
	o := &evalExportOptions{}
	cmd := &cobra.Command{
		Use:   "export --query QUERY --to DIR [--task-queue QUEUE]",
		Short: "Write one eval case file per closed run matching a visibility query",
		Long: `eval export lists the runs matching a Temporal visibility query (--query)
and writes, for each closed AgentWorkflow run, a case file DIR/<workflow
id>.yaml (docs/eval.md): the agent, task, input and output schema it was
started with; every tool call that reached its tool, in order (those a
rollback or an edit invalidated too), keyed by tool and arguments, with its
result or its error (class and message); and the
recorded outcome (status, output, steps, model requests, tool calls, tokens,
cost, loops, seconds from a loop to progress, rungs climbed, repairs) with
a trace summary.

A running run is skipped, with a line saying so; so are other workflow
types and the earlier generations of a run that continued as new (its
latest run is exported, with the trace and the failures' classes of them
all). --task-queue keeps
only the runs of that task queue. DIR is created if missing.

The trace is read with the run's trace query: a closed run's query is
answered by a worker of its task queue, so one must be polling it
(bin/unstuck-worker --config agents.yaml).

A case is never written with a secret in it: a case holding the value of an
environment variable of this process named like a secret (KEY, TOKEN,
SECRET, PASSWORD, AUTH) is refused, naming the run and the field, and the
others are written. The exit status is 1 when a run was refused or could
not be read, or when the query matches no run.

Equivalent temporal commands (per run, then shaped into a case by hand):
  temporal workflow list --query QUERY
  temporal workflow show --workflow-id ID --output json
  temporal workflow query --workflow-id ID --name trace`,
		Example: `  unstuck eval export --query "WorkflowId = 'travel-20240115-093000-1a2b3c'" --to evals/
  unstuck eval export --query "AgentName = 'travel' AND ExecutionStatus = 'Completed'" --to evals/
  unstuck eval export --query "StartTime > '2024-01-15T00:00:00Z'" --task-queue unstuck --to evals/`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if strings.TrimSpace(o.query) == "" {
				return usageErrorf("--query is required: a visibility query, e.g. \"WorkflowId = 'travel-20240115-093000-1a2b3c'\"")
			}
			if strings.TrimSpace(o.to) == "" {
				return usageErrorf("--to is required: the directory to write the case files to")
			}
			return c.evalExport(cmd, o)
		},
	}
	cmd.Flags().StringVar(&o.query, "query", "", "visibility query naming the runs to export (required)")
	cmd.Flags().StringVar(&o.to, "to", "", "directory to write the case files to, created if missing (required)")
	cmd.Flags().StringVar(&o.taskQueue, "task-queue", "", "export only the runs of this task queue")
	return cmd
}

// evalExport writes a case per closed run of the query, refusing those
// holding a secret, and sums up.
func (c *cli) evalExport(cmd *cobra.Command, o *evalExportOptions) error {
	if err := os.MkdirAll(o.to, 0o755); err != nil {
		return fmt.Errorf("--to %s: %w", o.to, err)
	}
	ctx, out := cmd.Context(), cmd.OutOrStdout()
	tc, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	query := o.query
	if o.taskQueue != "" {
		query = fmt.Sprintf("(%s) AND TaskQueue = '%s'", o.query, strings.ReplaceAll(o.taskQueue, "'", "\\'"))
	}
	runs, _, err := c.listRuns(ctx, tc, query, 0)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return fmt.Errorf("no run matches the query %q in namespace %q", query, c.namespace)
	}
	x := &exporter{cli: c, tc: tc, dir: o.to, out: out, secrets: eval.EnvSecrets(os.Environ()), names: map[string]bool{}}
	for _, r := range runs {
		x.export(ctx, r)
	}
	return x.summary()
}

// listRuns lists the runs matching query, page by page, at most limit
// of them (0: every one); more says that more match than listed.
func (c *cli) listRuns(ctx context.Context, tc client.Client, query string, limit int) (runs []*workflowpb.WorkflowExecutionInfo, more bool, err error) {
	var token []byte
	for {
		req := &workflowservice.ListWorkflowExecutionsRequest{Namespace: c.namespace, Query: query, NextPageToken: token}
		if limit > 0 {
			req.PageSize = int32(min(limit-len(runs)+1, 1000)) // one more tells that more match
		}
		resp, err := tc.ListWorkflow(ctx, req)
		if err != nil {
			return nil, false, fmt.Errorf("list the runs of --query %q in namespace %q: %w", query, c.namespace, err)
		}
		runs = append(runs, resp.GetExecutions()...)
		if limit > 0 && len(runs) > limit {
			return runs[:limit], true, nil
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return runs, false, nil
		}
	}
}

// exporter writes the cases of one export and keeps its tally.
type exporter struct {
	*cli
	tc      client.Client
	dir     string
	out     io.Writer
	secrets []string
	names   map[string]bool // case names written, against two runs of one workflow id
	written int
	failed  []string // the runs not written, and why
}

// export writes the case of one listed run, or says why it does not.
func (x *exporter) export(ctx context.Context, info *workflowpb.WorkflowExecutionInfo) {
	id, runID := info.GetExecution().GetWorkflowId(), info.GetExecution().GetRunId()
	switch {
	case info.GetType().GetName() != workflows.WorkflowName:
		fmt.Fprintf(x.out, "skipped %s (run %s): a %s, not an %s\n", id, runID, info.GetType().GetName(), workflows.WorkflowName)
		return
	case info.GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_RUNNING:
		fmt.Fprintf(x.out, "skipped %s (run %s): still running; export it once it has ended\n", id, runID)
		return
	case info.GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		fmt.Fprintf(x.out, "skipped %s (run %s): continued as new; its latest run is exported with the whole trace\n", id, runID)
		return
	}
	c, err := x.record(ctx, info)
	if err != nil {
		x.fail(id, err.Error())
		return
	}
	if field := eval.FindSecret(c, x.secrets); field != "" {
		x.fail(id, fmt.Sprintf("%s holds the value of a secret environment variable; the case is not written", field))
		return
	}
	if x.names[c.Name] {
		c.Name += "-" + runID
	}
	path, err := eval.Write(x.dir, c)
	if err != nil {
		x.fail(id, err.Error())
		return
	}
	x.names[c.Name] = true
	x.written++
	fmt.Fprintf(x.out, "wrote %s: %s, %s, %d tool result(s)\n", path, c.Agent, c.Recorded.Status, len(c.Tools))
}

// record reads a closed run (its history and its whole trace) as a case.
func (x *exporter) record(ctx context.Context, info *workflowpb.WorkflowExecutionInfo) (*eval.Case, error) {
	id, runID := info.GetExecution().GetWorkflowId(), info.GetExecution().GetRunId()
	rec := eval.Recording{WorkflowID: id}
	if err := readHistory(ctx, x.tc, id, runID, &rec); err != nil {
		return nil, err
	}
	tr, err := x.wholeTrace(ctx, x.tc, id, runID)
	if err != nil {
		return nil, fmt.Errorf("cannot read its trace (run %s): %v; a closed run's trace query is answered by a worker of its task queue %q: start one polling it (bin/unstuck-worker --config agents.yaml) and export again",
			runID, err, info.GetTaskQueue())
	}
	rec.Nodes = tr.Nodes
	return eval.FromRecording(rec), nil
}

// fail notes a run not written, and says so at once.
func (x *exporter) fail(id, why string) {
	x.failed = append(x.failed, id+": "+why)
	fmt.Fprintf(x.out, "refused %s: %s\n", id, termtext.Visible(why))
}

// summary sums the export up: exit 1 when a run was not written.
func (x *exporter) summary() error {
	line := fmt.Sprintf("wrote %d case(s) to %s", x.written, x.dir)
	if len(x.failed) == 0 {
		fmt.Fprintln(x.out, line)
		return nil
	}
	fmt.Fprintf(x.out, "%s; %d refused: %s\n", line, len(x.failed), termtext.Visible(strings.Join(x.failed, "; ")))
	return &exitError{code: exitFailure, err: fmt.Errorf("%d run(s) not exported", len(x.failed)), silent: true}
}
