package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/eval"
)

// evalRunOptions are the flags of `unstuck eval run`.
type evalRunOptions struct {
	config, unrecorded, taskQueue string
	baseline, report              string
	repeat, concurrency           int
	timeout                       time.Duration
	threshold                     float64
	json                          bool
}

func newEvalRunCmd(c *cli) *cobra.Command {
	o := &evalRunOptions{}
	cmd := &cobra.Command{
		Use:   "run DIR --config FILE [--repeat k] [--concurrency n] [--unrecorded error|live] [--baseline REPORT] [--json] [--report FILE.html|.md]",
		Short: "Replay a suite of eval cases as real runs against a candidate config and print a scorecard",
		Long: `eval run reads the case files of DIR (*.yaml, see docs/eval.md) and the
candidate config (--config, as unstuck-worker reads it), starts the real
unstuck workers in this process on a task queue of their own, and runs each
case --repeat times as a real AgentWorkflow, at most --concurrency at once.

Every tool call is answered from the case's recording, by tool and
arguments, in the order recorded (a call that failed and then succeeded
fails, then succeeds); a recorded failure fails the call with its class, as
the tool's own failure did. No tool is called. A call the recording does not
have (another tool, other arguments):
  --unrecorded error (default): fails with a persistent error saying the call
    was not recorded, and the run is diverged (it does not pass).
  --unrecorded live: is made for real, for a tool declared effect: read
    only; a case whose agent has a write tool, or a tool whose effect the
    config does not declare, is refused at the start.
The model is the config's, for real: the candidate is the model, prompts and
policies of --config. Endpoints and secrets come only from --config, never
from a case file: a case holding the value of an environment variable of this
process named like a secret (KEY, TOKEN, SECRET, PASSWORD, AUTH) is refused,
naming the file and the field.

A conversation (an agent with conversation:) is sent the case's messages,
each once it waits for it, and after the last answer is ended (cancelled),
its outcome completed with its last output. Every run the eval starts
(cases, judges) is ended before it exits: one past --timeout is
cancelled, then terminated; Ctrl-C or SIGTERM ends them all and scores
nothing (exit status 2).

A run passes when it completed, did not diverge, and its output is the
case's expected one: expect.match exact or subset compare it with
expect.output; judge has the agent expect.judge of --config (one without
tools, handoffs or conversation) judge it in a run of its own
(eval-<case>-<i>-<stamp>-judge) on the task, input, output and the
reference answer expect.output if any. A judge case's recorded output is
judged too, once per eval. The scorecard gives per case its runs passed,
pass^k (all k passed), the mean steps, model requests, tokens, cost, loops,
time from a loop's first event to progress (TO-PROGRESS; loops no progress
followed are "stuck"), rungs climbed, repairs and diverged calls, beside
the recorded run's outcome (better: a pass gained; worse: a pass lost;
steps, loops and loops without progress up or down). Progress goes to
stderr, the scorecard to stdout (--json: the whole scorecard as JSON).

--baseline REPORT compares with an earlier eval instead of the recordings:
REPORT is the scorecard JSON --json printed then. Cases are matched by name;
one the baseline lacks is "not in baseline". A baseline that is not such
JSON, or names no case of the suite, is refused before anything runs.
--report FILE.md or FILE.html also writes the scorecard as a report, the
extension saying the format: the suite, then each case beside its baseline;
the HTML one is a single page with a bar plot per case (pass rate, loops,
cost). Another extension is refused before anything runs.

Exit codes: 0 no worse than the baseline (the recording, or --baseline),
1 the candidate is worse than the baseline by more than --threshold (a share
of the cases that lost their pass, default 0), and only then,
2 the eval could not run, and nothing is scored: a usage error; a case
file, the config or the baseline refused before anything runs; Temporal
unreachable; no worker took the cases (no run's first workflow task
completed within --timeout); no model of an agent the cases (or their
judges) run answers at its endpoint (checked by a connection, before
anything runs); interrupted (Ctrl-C, SIGTERM).`,
		Example: `  # the suite against a candidate config, each case three times
  unstuck eval run evals/ --config candidate.yaml --repeat 3

  # as JSON, allowing one case in ten to get worse
  unstuck eval run evals/ --config candidate.yaml --json --threshold 0.1

  # against last release's scorecard, with an HTML report for the CI job
  unstuck eval run evals/ --config candidate.yaml --baseline release.json --report eval.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("eval run takes one argument, the directory of case files (got %d)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			return c.evalRun(cmd, args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "candidate agent config (YAML, as unstuck-worker reads it); required")
	f.IntVar(&o.repeat, "repeat", 1, "runs of each case (k of pass^k)")
	f.IntVar(&o.concurrency, "concurrency", 4, "runs at once, at most")
	f.StringVar(&o.unrecorded, "unrecorded", eval.UnrecordedError, "a call the recording does not have: error (the run diverges) or live (read tools only)")
	f.StringVar(&o.taskQueue, "task-queue", "", "task queue of the in-process workers (default eval-<timestamp>)")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "longest wait for one run's result")
	f.Float64Var(&o.threshold, "threshold", 0, "share of cases (0 to 1) allowed to lose their pass before exit status 1")
	f.BoolVar(&o.json, "json", false, "print the scorecard as JSON (what --baseline reads)")
	f.StringVar(&o.baseline, "baseline", "", "compare with this earlier scorecard (JSON from --json) instead of the recordings")
	f.StringVar(&o.report, "report", "", "also write the scorecard as a report: FILE.md (Markdown) or FILE.html")
	return cmd
}

// check refuses flags out of range before anything is read.
func (o *evalRunOptions) check() error {
	switch {
	case o.config == "":
		return usageErrorf("--config is required: the candidate config the cases run against")
	case o.repeat < 1:
		return usageErrorf("--repeat must be at least 1, not %d", o.repeat)
	case o.concurrency < 1:
		return usageErrorf("--concurrency must be at least 1, not %d", o.concurrency)
	case o.unrecorded != eval.UnrecordedError && o.unrecorded != eval.UnrecordedLive:
		return usageErrorf("--unrecorded must be error or live, not %q", o.unrecorded)
	case o.timeout <= 0:
		return usageErrorf("--timeout must be positive, not %s", o.timeout)
	case o.threshold < 0 || o.threshold > 1:
		return usageErrorf("--threshold is a share of the cases, from 0 to 1, not %g", o.threshold)
	}
	if o.report != "" {
		if _, err := eval.ReportKind(o.report); err != nil {
			return usageErrorf("--report: %v", err)
		}
	}
	return nil
}

// evalRun loads and checks the suite, runs it on in-process workers and
// prints the scorecard. An eval that could not run (refused before it
// starts, Temporal unreachable, no worker took its runs, interrupted)
// exits 2 and is never scored: only a regression exits 1.
func (c *cli) evalRun(cmd *cobra.Command, dir string, o *evalRunOptions) error {
	sc, err := c.scoreEval(cmd, dir, o)
	if err != nil {
		return notRun(err)
	}
	return finishEval(cmd, sc, o)
}

// scoreEval loads and checks the suite, runs it and scores it.
func (c *cli) scoreEval(cmd *cobra.Command, dir string, o *evalRunOptions) (eval.Scorecard, error) {
	var none eval.Scorecard
	cases, err := eval.LoadDir(dir)
	if err != nil {
		return none, err
	}
	cfg, err := app.LoadConfig(o.config)
	if err != nil {
		return none, fmt.Errorf("config refused:\n%w", err)
	}
	if err := checkEvalCases(cases, cfg, o.config, o.unrecorded); err != nil {
		return none, err
	}
	if err := checkEvalSecrets(cases, eval.EnvSecrets(os.Environ())); err != nil {
		return none, err
	}
	var base *eval.Scorecard
	if o.baseline != "" {
		b, err := eval.LoadBaseline(o.baseline, cases)
		if err != nil {
			return none, err
		}
		base = &b
	}
	// Ctrl-C or a CI job's SIGTERM stops the eval: the runs it started
	// are ended (endOpen) before it exits, and nothing is scored.
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The in-process workers' activities fail on purpose (a recorded
	// failure, a call not recorded): the eval reports every run itself.
	tc, err := c.clientLogging(ctx, loadDialTimeout, app.SilentLogger())
	if err != nil {
		return none, err
	}
	defer tc.Close()
	if err := checkEvalModels(cases, cfg, o.config); err != nil {
		return none, err
	}
	// The workflow sets AgentName and AgentPhase, which must exist first.
	if err := app.EnsureSearchAttributes(ctx, tc, c.namespace); err != nil {
		return none, err
	}
	// Two evals started in the same second (two CI jobs) must not share a
	// queue, whose workers would serve each other's runs, nor workflow
	// ids: the stamp is the time and 6 random hex digits.
	stamp, err := newStamp()
	if err != nil {
		return none, err
	}
	if o.taskQueue == "" {
		o.taskQueue = "eval-" + stamp
	}
	emulator := eval.NewEmulator(o.unrecorded, eval.DefaultedEffects(cfg)...)
	ws, err := app.NewWorkers(tc, cfg, o.taskQueue, worker.Options{}, activities.WithToolEmulator(emulator.Answer))
	if err != nil {
		return none, err
	}
	if err := ws.Start(); err != nil {
		return none, err
	}
	defer ws.Stop()
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "eval: %d case(s) × %d on task queue %s, tools answered from the recordings (--unrecorded %s)\n",
		len(cases), o.repeat, o.taskQueue, o.unrecorded)
	r := &evalRunner{c: tc, emulator: emulator, taskQueue: o.taskQueue, stamp: stamp, timeout: o.timeout, progress: stderr}
	defer r.endOpen() // before the workers stop: a cancelled run closes on them
	runs := r.runAll(ctx, cases, o.repeat, o.concurrency)
	if ctx.Err() != nil {
		return none, fmt.Errorf("eval: interrupted; the runs it started were ended, and nothing is scored")
	}
	if err := r.untaken(); err != nil {
		return none, err
	}
	sc := eval.Score(cases, runs, o.threshold)
	if base != nil {
		sc = eval.Compare(sc, *base, o.baseline)
	}
	return sc, nil
}

// finishEval prints sc, writes its report, and fails when the candidate
// is worse than its baseline by more than the threshold.
func finishEval(cmd *cobra.Command, sc eval.Scorecard, o *evalRunOptions) error {
	out := cmd.OutOrStdout()
	var err error
	if o.json {
		err = printJSON(out, sc)
	} else {
		err = eval.WriteTable(out, sc)
	}
	if err != nil {
		return notRun(err)
	}
	if o.report != "" {
		if err := eval.WriteReport(o.report, sc); err != nil {
			return notRun(err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "eval: wrote the report %s\n", o.report)
	}
	if sc.Suite.Failed {
		return &exitError{code: exitFailure, err: fmt.Errorf("eval: the candidate is worse than %s: %d of %d case(s) lost their pass, over --threshold %g",
			sc.Against(), sc.Suite.Worse, sc.Suite.Cases, o.threshold)}
	}
	return nil
}
