package flakygraph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/signals"
)

// workflowType is AgentWorkflow's name (workflows.WorkflowName; this
// package does not import workflows, whose tests use it).
const workflowType = "AgentWorkflow"

// result is what the scenario reads of a run's result or AgentStopped
// report (workflows.AgentResult).
type result struct {
	Steps       int          `json:"steps"`
	Escalations []Escalation `json:"escalations"`
	Reason      string       `json:"reason"`
}

// Escalation is a rung a run took (workflows.Escalation).
type Escalation struct {
	At     string `json:"at"`
	Action string `json:"action"`
	Why    string `json:"why"`
}

// Outcome is how one run of the scenario ended.
type Outcome struct {
	Seed        int
	Run         client.WorkflowRun
	ReachedE    bool
	Steps       int
	BCalls      int
	Escalations []Escalation
	// Reason is the stop's reason, for a run that did not reach E.
	Reason string
	// Err: the run ended neither at E nor with AgentStopped (a bug).
	Err error
}

// Rungs are the outcome's escalations, by rung.
func (o Outcome) Rungs() []string {
	var out []string
	for _, e := range o.Escalations {
		out = append(out, e.Action)
	}
	return out
}

// RunAll starts one run per seed at once on queue (a worker with the
// scenario's Config must serve it) and waits for all of them, each for at
// most wait.
func RunAll(ctx context.Context, c client.Client, queue string, seeds []int, tools *Tools, wait time.Duration) []Outcome {
	out := make([]Outcome, len(seeds))
	stamp := time.Now().UnixNano()
	var wg sync.WaitGroup
	for i, seed := range seeds {
		wg.Go(func() {
			out[i] = runOne(ctx, c, queue, seed, fmt.Sprintf("flakygraph-%s-%d-%d", queue, seed, stamp), tools, wait)
		})
	}
	wg.Wait()
	return out
}

func runOne(ctx context.Context, c client.Client, queue string, seed int, id string, tools *Tools, wait time.Duration) Outcome {
	o := Outcome{Seed: seed}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: id, TaskQueue: queue, WorkflowExecutionTimeout: wait,
	}, workflowType, map[string]any{"agent": Agent, "task": "reach E",
		"input": json.RawMessage(fmt.Sprintf(`{"seed": %d, "fallback": "escaped"}`, seed))})
	if err != nil {
		o.Err = fmt.Errorf("seed %d: start: %w", seed, err)
		return o
	}
	o.Run = run
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var res result
	err = run.Get(ctx, &res)
	var app *temporal.ApplicationError
	switch {
	case err == nil:
		o.ReachedE = true
	case errors.As(err, &app) && app.Type() == signals.StoppedErrorType:
		_ = app.Details(&res)
		o.Reason = res.Reason
	default:
		o.Err = fmt.Errorf("seed %d: neither E nor AgentStopped: %w", seed, err)
	}
	o.Steps, o.Escalations = res.Steps, res.Escalations
	o.BCalls = tools.Calls(id, "b")
	return o
}

// Summary is what the scenario measures over its runs.
type Summary struct {
	Runs, Reached int
	// StepsToE is the mean steps of the runs that reached E.
	StepsToE float64
	// BCallsPerRun is the mean calls of B per run.
	BCallsPerRun float64
	// Stopped counts the runs that stopped, by the start of their reason.
	Stopped map[string]int
}

// Summarize sums the outcomes up.
func Summarize(outcomes []Outcome) Summary {
	s := Summary{Runs: len(outcomes), Stopped: map[string]int{}}
	steps, b := 0, 0
	for _, o := range outcomes {
		b += o.BCalls
		if o.ReachedE {
			s.Reached++
			steps += o.Steps
		} else if o.Err == nil {
			s.Stopped[stopKind(o.Reason)]++
		}
	}
	s.StepsToE = float64(steps) / float64(max(s.Reached, 1))
	s.BCallsPerRun = float64(b) / float64(max(s.Runs, 1))
	return s
}

// stopKind is a stop's reason without its particulars: up to its first
// " (" or ":" ("max_steps (100) reached ..." is "max_steps", "stuck in a
// cycle loop of period 2 repeated 3 times (cycle ...)" keeps its loop).
func stopKind(reason string) string {
	if i := strings.IndexAny(reason, "(:"); i >= 0 {
		reason = reason[:i]
	}
	return strings.TrimSpace(reason)
}

// Share is the share of the runs that reached E.
func (s Summary) Share() float64 { return float64(s.Reached) / float64(max(s.Runs, 1)) }

// String is the summary as a line of a report.
func (s Summary) String() string {
	return fmt.Sprintf("%d of %d reached E (%.1f%%), %.1f steps to E, %.1f calls of B per run, stopped %v",
		s.Reached, s.Runs, 100*s.Share(), s.StepsToE, s.BCallsPerRun, s.Stopped)
}

// WorkerRefusals counts, over the outcomes' traces, the calls of B the
// worker's breaker refused (CircuitOpen "on this worker"): non-zero when
// the worker cut B for every run.
func WorkerRefusals(ctx context.Context, c client.Client, outcomes []Outcome) (int, error) {
	n := 0
	for _, o := range outcomes {
		if o.Run == nil {
			continue
		}
		var next string
		for first := true; first || next != ""; first = false {
			var args []any
			if next != "" {
				args = append(args, signals.TracePage{Since: next})
			}
			v, err := queryClosed(ctx, c, o.Run, args...)
			if err != nil {
				return n, fmt.Errorf("seed %d: trace: %w", o.Seed, err)
			}
			var tr signals.Trace
			if err := v.Get(&tr); err != nil {
				return n, fmt.Errorf("seed %d: trace: %w", o.Seed, err)
			}
			for _, node := range tr.Nodes {
				if node.Kind == signals.KindCall && strings.Contains(node.Error, "circuit open on this worker") {
					n++
				}
			}
			next = tr.Next
		}
	}
	return n, nil
}

// queryClosed asks a closed run's trace: a worker answers it by replaying
// the whole run, which on a loaded machine can outlast one query's
// deadline, so a query that timed out is asked again, twice at most.
func queryClosed(ctx context.Context, c client.Client, run client.WorkflowRun, args ...any) (converter.EncodedValue, error) {
	var err error
	for range 3 {
		var v converter.EncodedValue
		v, err = c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), signals.QueryTrace, args...)
		var late *serviceerror.DeadlineExceeded
		if err == nil || !(errors.Is(err, context.DeadlineExceeded) || errors.As(err, &late)) {
			return v, err
		}
	}
	return nil, err
}
