package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/internal/eval"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// evalRunner runs an eval's cases as real AgentWorkflow runs on the
// in-process workers' task queue.
type evalRunner struct {
	c         client.Client
	emulator  *eval.Emulator
	taskQueue string
	stamp     string
	timeout   time.Duration
	progress  io.Writer
	mu        sync.Mutex // orders the progress lines
	done      int
}

// runAll runs every case repeat times, at most concurrency at once, and
// answers the judged runs in case order.
func (r *evalRunner) runAll(ctx context.Context, cases []*eval.Case, repeat, concurrency int) []eval.Run {
	runs := make([]eval.Run, len(cases)*repeat)
	slots := make(chan struct{}, concurrency)
	var wg sync.WaitGroup
	for ci, c := range cases {
		for i := range repeat {
			wg.Add(1)
			slots <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				runs[ci*repeat+i] = r.run(ctx, c, i+1, len(runs))
			}()
		}
	}
	wg.Wait()
	return runs
}

// run does one run of c and judges it.
func (r *evalRunner) run(ctx context.Context, c *eval.Case, i, total int) eval.Run {
	id := fmt.Sprintf("eval-%s-%d-%s", c.Name, i, r.stamp)
	run := eval.Run{Case: c.Name, Repeat: i, WorkflowID: id}
	r.emulator.Add(id, c)
	run.Outcome, run.Reason = r.outcome(ctx, c, id)
	run.Diverged, run.Live = r.emulator.Done(id)
	eval.Judge(c, &run)
	r.mu.Lock()
	r.done++
	verdict := "pass"
	if !run.Pass {
		verdict = "FAIL: " + run.Why
	}
	fmt.Fprintf(r.progress, "eval: [%d/%d] %s #%d (%s): %s\n", r.done, total, c.Name, i, id, verdict)
	r.mu.Unlock()
	return run
}

// outcome starts the run of c as id, waits for its end (at most the
// runner's timeout) and reads what it did; reason says why a run that did
// not complete stopped.
func (r *evalRunner) outcome(ctx context.Context, c *eval.Case, id string) (eval.Outcome, string) {
	o := eval.Outcome{Run: id}
	in := workflows.AgentInput{Agent: c.Agent, Task: c.Task, OutputSchema: c.OutputSchema}
	if c.Input != nil {
		b, err := json.Marshal(c.Input)
		if err != nil {
			o.Status = "not started"
			return o, fmt.Sprintf("%s: input: %v", c.Path, err)
		}
		in.Input = b
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	wr, err := r.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: r.taskQueue}, workflows.WorkflowName, in)
	if err != nil {
		o.Status = "not started"
		return o, err.Error()
	}
	var res workflows.AgentResult
	reason := ""
	if err := wr.Get(ctx, &res); err != nil {
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Type() != signals.StoppedErrorType || appErr.Details(&res) != nil {
			o.Status = "failed"
			if ctx.Err() != nil {
				return o, fmt.Sprintf("no result within --timeout %s", r.timeout)
			}
			return o, err.Error()
		}
		reason = res.Reason
		if res.LastError != "" {
			reason += ": " + res.LastError
		}
	}
	// Measured as an export measures the recording (eval.OutcomeOf), so
	// a run and its recording compare like for like; a trace the run
	// does not answer leaves its loops and repairs at 0.
	tr, _ := queryTrace(ctx, r.c, id, "")
	o = eval.OutcomeOf(eval.Recording{WorkflowID: id, Result: &res, Nodes: tr.Nodes})
	if o.Status == "" {
		o.Status = "stopped"
	}
	return o, reason
}
