package main

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/app/replay"
	"github.com/unstuck-dev/unstuck/internal/termtext"
	"github.com/unstuck-dev/unstuck/workflows"
)

// defaultReplayLimit bounds how many runs a --query replays.
const defaultReplayLimit = 1000

func newReplayCmd(c *cli) *cobra.Command {
	var query string
	var limit int
	cmd := &cobra.Command{
		Use:   "replay (--query QUERY | FILE_OR_DIR...)",
		Short: "Replay runs' histories against this build's workflow code (before a deploy)",
		Long: `Replay workflow histories against the workflow code of this build, with
Temporal's replayer, as a worker of this build would when it picks the runs
up. Run it in CI with the candidate build before rolling it out: a run that
does not replay would fail its workflow tasks (a non-determinism error) on
the new workers.

The histories come from a visibility query (--query; each matching run's
history is read from Temporal, at most --limit runs, in the order the server
lists them, newest first) or from files: 'temporal workflow show -o json'
output, or the project's recorded histories; a directory is read for *.json
files, below it too. A run still open replays up to its last event. Each
history replays under its own workflow id, with the workflows and the
interceptors the worker registers; a run that fails is replayed once more,
alone, before it is reported (a replay starved of CPU can trip the SDK's
deadlock detector). See docs/replay.md.

One line per run, then the total:
  ok   <workflow id>/<run id>   (or the file)
  FAIL <workflow id>/<run id>: non-determinism at event <id> (<event type> <name>): this build makes <command> instead
  BAD  <file>: <why it is no history this build replays>
  <n> runs in <s>s (<r> runs/s): <n> ok, <n> would not replay, <n> bad input

Exit codes: 0 every run replayed; 1 a run would not replay (a FAIL line);
2 bad input and no FAIL: a file that is no history, a history of a workflow
type this build does not run (it runs ` + workflows.WorkflowName + `), a query that matches
no run or that the server refuses. A bad input is named and skipped, the
others are replayed all the same.

Equivalent Temporal tooling: download each history with
  temporal workflow show --workflow-id ID --run-id RUN -o json > ID.json
and replay them with worker.NewWorkflowReplayer, registering AgentWorkflow.`,
		Example: `  # the last day's runs of every agent, against this build (the release checklist, in CI)
  unstuck replay --query "WorkflowType = 'AgentWorkflow' AND StartTime > '$(date -u -d '1 day ago' +%Y-%m-%dT%H:%M:%SZ)'"

  # one agent's runs that are still open
  unstuck replay --query 'WorkflowType="AgentWorkflow" AND AgentName="travel" AND ExecutionStatus="Running"'

  # histories saved with temporal workflow show -o json, and the project's recordings
  temporal workflow show --workflow-id travel-20240115-093000-1a2b3c -o json > travel.json
  unstuck replay travel.json testsuite/histories/v0.2`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case query == "" && len(args) == 0:
				return usageErrorf("replay needs --query QUERY or history files")
			case query != "" && len(args) > 0:
				return usageErrorf("replay takes --query or files, not both")
			case limit < 1:
				return usageErrorf("--limit must be at least 1, got %d", limit)
			}
			var sources []replay.Source
			if query != "" {
				tc, err := c.client(cmd.Context())
				if err != nil {
					return err
				}
				defer tc.Close()
				if sources, err = c.queriedRuns(cmd.Context(), tc, query, limit, cmd.ErrOrStderr()); err != nil {
					return err
				}
			} else {
				var err error
				if sources, err = replay.Files(args); err != nil {
					return notRun(err)
				}
			}
			return replayAll(cmd, sources)
		},
	}
	cmd.Flags().StringVar(&query, "query", "", `visibility query of the runs to replay, e.g. 'WorkflowType="AgentWorkflow" AND StartTime > "2026-12-06T00:00:00Z"'`)
	cmd.Flags().IntVar(&limit, "limit", defaultReplayLimit, "replay at most this many runs of --query")
	return cmd
}

// replayAll replays sources, a few at once, printing a line per run as it
// is known (in the sources' order) and the total.
func replayAll(cmd *cobra.Command, sources []replay.Source) error {
	out := cmd.OutOrStdout()
	var tally replayTally
	start := time.Now()
	replay.All(cmd.Context(), sources, runtime.GOMAXPROCS(0), app.SilentLogger(), func(o replay.Outcome) {
		tally.add(out, o)
	})
	tally.total(out, time.Since(start))
	return tally.exit()
}

// replayTally counts the outcomes and prints their lines.
type replayTally struct{ ok, failed, bad int }

func (t *replayTally) add(out io.Writer, o replay.Outcome) {
	name := termtext.Visible(o.Name)
	_, bad := replay.Bad(o.Err)
	switch {
	case o.Err == nil:
		t.ok++
		fmt.Fprintf(out, "ok   %s\n", name)
	case bad:
		t.bad++
		fmt.Fprintf(out, "BAD  %s: %s\n", name, termtext.Visible(o.Why))
	default:
		t.failed++
		fmt.Fprintf(out, "FAIL %s: %s\n", name, termtext.Visible(o.Why))
	}
}

func (t *replayTally) total(out io.Writer, took time.Duration) {
	runs := t.ok + t.failed + t.bad
	fmt.Fprintf(out, "%s in %.2fs (%.1f runs/s): %d ok, %d would not replay, %d bad input\n",
		count(runs, "run"), took.Seconds(), float64(runs)/max(took.Seconds(), 1e-9), t.ok, t.failed, t.bad)
}

// exit is the command's outcome: a run that would not replay outranks a
// bad input, so CI reads 1 as "this build breaks running workflows".
func (t *replayTally) exit() error {
	switch {
	case t.failed > 0:
		return &exitError{code: exitFailure, err: fmt.Errorf("%d runs would not replay", t.failed), silent: true}
	case t.bad > 0:
		return &exitError{code: exitNotRun, err: fmt.Errorf("%d inputs are no history this build replays", t.bad), silent: true}
	}
	return nil
}
