package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/load"
	"github.com/unstuck-dev/unstuck/workflows"
)

// loadDialTimeout bounds reaching Temporal (dial and health check) before
// a load: a wrong address is an error within seconds, not a hang.
const loadDialTimeout = 5 * time.Second

// loadOptions are the flags of `unstuck load`.
type loadOptions struct {
	agent, task, config, taskQueue string
	runs, concurrency, steps       int
	historySample                  int
	toolLatency, runTimeout        time.Duration
	json                           bool
}

func newLoadCmd(c *cli) *cobra.Command {
	o := &loadOptions{}
	cmd := &cobra.Command{
		Use:   "load [--runs N] [--concurrency C] [--config agents.yaml --agent A --task-queue Q --task TEXT]",
		Short: "Drive many agent runs at once and report throughput, latency percentiles and failures",
		Long: `load starts --runs agent runs, at most --concurrency at a time, waits for each
to end and prints a report: runs completed and failed, wall time, throughput
(runs/s, steps/s), step and run latency percentiles (p50, p95, p99), failures
by kind, and the Temporal server's own figures (the task queue's pollers and
backlog, workflow task failures and activity retries in the runs' histories).
A progress line goes to stderr every second; the report to stdout (--json:
as JSON).

Two modes:
  self-contained (no --config, the default): load starts, in this process, a
    scripted model server (a TEST DOUBLE, not a real model) whose script calls
    a tool --steps times and then gives the final output, a loopback HTTP tool
    answering each call after --tool-latency (it records every call's
    Idempotency-Key), and an unstuck worker for the agent "load" on a task
    queue of its own, against the Temporal server of --address. It measures
    unstuck and Temporal, not a model.
  external (--config agents.yaml --agent A --task-queue Q --task TEXT): load
    only starts runs of A on Q; the workers already polling Q (a deployment)
    run them with their own model and tools. --config is the workers' config,
    read to check the agent.

The first run goes alone: if it fails (an agent the workers do not know, a
broken tool), load reports that failure and stops instead of starting the
others. Runs of a queue no worker polls are never started. Ctrl-C stops
starting runs and reports what ended (runs in flight go on on the server).

A step is from one model request's start to the next's (the last: to the
run's end), read in the runs' histories after the load (--history-sample
reads fewer); a run's latency is from asking to start it to its result.

Exit codes: 0 the load ran (failed runs are in the report), 1 the load could
not run or stopped early, 2 usage error.`,
		Example: `  # against the dev server of make demo: 1000 runs of 5 steps, 200 at a time
  unstuck load --runs 1000 --concurrency 200
  unstuck load --runs 200 --concurrency 50 --steps 10 --tool-latency 50ms --json

  # runs of a deployment's agent, on the workers polling its task queue
  unstuck load --address temporal.example:7233 --config agents.yaml --agent travel \
    --task-queue agents --task "Book NYC to LAX on 2024-01-15" --runs 100 --concurrency 20`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(cmd); err != nil {
				return err
			}
			return c.load(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.agent, "agent", "", `agent to run (self-contained: "load", the only one)`)
	f.StringVar(&o.task, "task", "", "every run's task (external mode: required)")
	f.IntVar(&o.runs, "runs", 100, "how many runs to start")
	f.IntVar(&o.concurrency, "concurrency", 10, "how many runs in flight at once (at most --runs)")
	f.StringVar(&o.config, "config", "", "the workers' agent config: external mode (no worker or model of its own)")
	f.StringVar(&o.taskQueue, "task-queue", "", "task queue (self-contained: one of its own; external: default "+workflows.TaskQueue+")")
	f.IntVar(&o.steps, "steps", load.DefaultSteps, "self-contained: tool calls per run before the final output")
	f.DurationVar(&o.toolLatency, "tool-latency", 0, "self-contained: how long the loopback tool takes to answer each call")
	f.DurationVar(&o.runTimeout, "run-timeout", load.DefaultRunTimeout, "bound of each run (workflow execution timeout); a run past it fails as a timeout")
	f.IntVar(&o.historySample, "history-sample", 0, "read the histories of this many ended runs after the load (0: all)")
	f.BoolVar(&o.json, "json", false, "print the report as JSON")
	return cmd
}

// external: --config names the workers' config.
func (o *loadOptions) external() bool { return o.config != "" }

// check refuses flags that cannot drive a load, naming the flag, before
// anything is dialed.
func (o *loadOptions) check(cmd *cobra.Command) error {
	switch {
	case o.runs <= 0:
		return usageErrorf("--runs must be at least 1, not %d", o.runs)
	case o.concurrency <= 0:
		return usageErrorf("--concurrency must be at least 1, not %d", o.concurrency)
	case o.historySample < 0:
		return usageErrorf("--history-sample must not be negative, not %d", o.historySample)
	case o.runTimeout <= 0:
		return usageErrorf("--run-timeout must be positive, not %s", o.runTimeout)
	case cmd.Flags().Changed("task-queue") && strings.TrimSpace(o.taskQueue) == "":
		return usageErrorf("--task-queue is empty")
	}
	if o.external() {
		for _, name := range []string{"steps", "tool-latency"} {
			if cmd.Flags().Changed(name) {
				return usageErrorf("--%s is for the self-contained load; with --config the workers' own model and tools run", name)
			}
		}
		switch {
		case strings.TrimSpace(o.agent) == "":
			return usageErrorf("--agent is required with --config")
		case strings.TrimSpace(o.task) == "":
			return usageErrorf("--task is required with --config")
		}
		if o.taskQueue == "" {
			o.taskQueue = workflows.TaskQueue
		}
	} else {
		switch {
		case o.steps <= 0:
			return usageErrorf("--steps must be at least 1, not %d", o.steps)
		case o.toolLatency < 0:
			return usageErrorf("--tool-latency must not be negative, not %s", o.toolLatency)
		case o.agent != "" && o.agent != load.LocalAgent:
			return usageErrorf("--agent %q: the self-contained load runs only the agent %q; pass --config for an agent of yours", o.agent, load.LocalAgent)
		case o.task != "":
			return usageErrorf("--task is for --config: the self-contained load's task is its script's")
		}
	}
	if o.concurrency > o.runs {
		fmt.Fprintf(cmd.ErrOrStderr(), "load: --concurrency %d is above --runs %d: running all %d at once\n", o.concurrency, o.runs, o.runs)
		o.concurrency = o.runs
	}
	return nil
}

// load dials Temporal, sets the load up (self-contained or external),
// drives it and prints the report.
func (c *cli) load(cmd *cobra.Command, o *loadOptions) error {
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	opts := load.Options{Runs: o.runs, Concurrency: o.concurrency, Namespace: c.namespace,
		RunTimeout: o.runTimeout, HistorySample: o.historySample, Progress: stderr}
	if o.external() {
		// The config is read before dialing: a typo in its path needs no server.
		if err := checkLoadConfig(stderr, o); err != nil {
			return err
		}
	}
	tc, err := c.clientWithin(ctx, loadDialTimeout)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	defer tc.Close()

	var local *load.Local
	if o.external() {
		opts.Agent, opts.Task, opts.TaskQueue, opts.Setup = o.agent, o.task, o.taskQueue, load.ExternalSetup
		fmt.Fprintf(stderr, "load: %d runs of agent %q on task queue %q at %s, %d at a time, on the workers polling it\n",
			o.runs, o.agent, o.taskQueue, c.address, o.concurrency)
	} else {
		local, err = load.StartLocal(ctx, tc, load.LocalOptions{Steps: o.steps, ToolLatency: o.toolLatency,
			TaskQueue: o.taskQueue, Namespace: c.namespace,
			Logf: func(format string, args ...any) { fmt.Fprintf(stderr, "load: "+format+"\n", args...) }})
		if err != nil {
			return err
		}
		defer local.Close()
		opts.Agent, opts.Task, opts.TaskQueue, opts.Setup = local.Agent, local.Task, local.TaskQueue, load.LocalSetup
		fmt.Fprintf(stderr, "load: self-contained: a worker on task queue %q at %s, the SCRIPTED model (a test double) and a loopback tool (%s latency); %d runs of %d steps, %d at a time\n",
			local.TaskQueue, c.address, o.toolLatency, o.runs, o.steps, o.concurrency)
	}

	report, err := load.Run(ctx, tc, opts)
	if report == nil {
		return fmt.Errorf("load: %w", err)
	}
	if local != nil {
		keys := local.Tools.Keys()
		report.ToolCalls = &keys
	}
	if perr := printLoadReport(cmd.OutOrStdout(), report, o.json); perr != nil {
		return perr
	}
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	return nil
}

// checkLoadConfig loads the workers' config and warns when it has no
// agent of that name: the run is still tried, since the workers' config
// is what counts, and the first run's failure then says it.
func checkLoadConfig(w io.Writer, o *loadOptions) error {
	cfg, err := app.LoadConfig(o.config)
	if err != nil {
		return fmt.Errorf("load: --config: %w", err)
	}
	var names []string
	for _, a := range cfg.Agents {
		names = append(names, a.Name)
	}
	if !slices.Contains(names, o.agent) {
		fmt.Fprintf(w, "load: warning: %s has no agent %q (agents: %s); starting one run to see what the workers say\n",
			o.config, o.agent, strings.Join(names, ", "))
	}
	return nil
}

func printLoadReport(w io.Writer, r *load.Report, asJSON bool) error {
	if asJSON {
		return printJSON(w, r)
	}
	return r.WriteText(w)
}
