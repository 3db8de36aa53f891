package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/eval"
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
	open      openRuns  // runs started and not seen end
	takes     takenRuns // under mu
}

// runAll runs every case repeat times, and has a judge case's recorded
// output judged, at most concurrency runs at once; it answers the judged
// runs in case order.
func (r *evalRunner) runAll(ctx context.Context, cases []*eval.Case, repeat, concurrency int) []eval.Run {
	runs := make([]eval.Run, len(cases)*repeat)
	slots := make(chan struct{}, concurrency)
	var wg sync.WaitGroup
	spawn := func(do func()) {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done(): // interrupted: start nothing more
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			do()
		}()
	}
	for ci, c := range cases {
		if o := c.Recorded; o != nil && eval.WantsJudge(c, *o, 0) {
			spawn(func() { c.RecordedJudgement = r.judgeRecorded(ctx, c) })
		}
		for i := range repeat {
			spawn(func() { runs[ci*repeat+i] = r.run(ctx, c, i+1, len(runs)) })
		}
	}
	wg.Wait()
	return runs
}

// run does one run of c and judges it.
func (r *evalRunner) run(ctx context.Context, c *eval.Case, i, total int) eval.Run {
	id := eval.RunID(c.Name, i, r.stamp)
	run := eval.Run{Case: c.Name, Repeat: i, WorkflowID: id}
	r.emulator.Add(id, c)
	run.Outcome, run.Reason = r.outcome(ctx, c, id)
	run.Diverged, run.Live = r.emulator.Done(id)
	judged := ""
	if eval.WantsJudge(c, run.Outcome, len(run.Diverged)) {
		run.Judgement = r.judge(ctx, c, eval.JudgeID(c.Name, i, r.stamp), run.Outcome.Output)
		judged = fmt.Sprintf(", judged by %s (%s)", c.Expect.Judge, run.Judgement.Run)
	}
	eval.Judge(c, &run)
	r.mu.Lock()
	r.done++
	fmt.Fprintf(r.progress, "eval: [%d/%d] %s #%d (%s%s): %s\n", r.done, total, c.Name, i, id, judged, verdict(run.Pass, run.Why))
	r.mu.Unlock()
	return run
}

// judgeRecorded has c's judge judge the recorded output, once per eval,
// so the recording's pass is the judge's as the runs' are.
func (r *evalRunner) judgeRecorded(ctx context.Context, c *eval.Case) *eval.Judgement {
	j := r.judge(ctx, c, eval.RecordedJudgeID(c.Name, r.stamp), c.Recorded.Output)
	pass, why := eval.Judged(c.Expect.Judge, j)
	r.mu.Lock()
	fmt.Fprintf(r.progress, "eval: %s's recording, judged by %s (%s): %s\n", c.Name, c.Expect.Judge, j.Run, verdict(pass, why))
	r.mu.Unlock()
	return j
}

// judge runs c's judge agent as id on output, a run's output for c. Its
// figures are not the case's: only its verdict is kept.
func (r *evalRunner) judge(ctx context.Context, c *eval.Case, id string, output any) *eval.Judgement {
	in := workflows.AgentInput{Agent: c.Expect.Judge, Task: eval.JudgeTask(c, output), OutputSchema: eval.VerdictSchema()}
	o, reason := r.execute(ctx, id, in, nil)
	return eval.JudgementOf(id, o, reason)
}

// verdict is a progress line's end: pass, or FAIL and why.
func verdict(pass bool, why string) string {
	if pass {
		return "pass"
	}
	return "FAIL: " + oneLine(why)
}

// outcome runs c as id and reads what it did; reason says why a run
// that did not complete stopped.
func (r *evalRunner) outcome(ctx context.Context, c *eval.Case, id string) (eval.Outcome, string) {
	in := workflows.AgentInput{Agent: c.Agent, Task: c.Task, OutputSchema: c.OutputSchema}
	if c.Input != nil {
		b, err := json.Marshal(c.Input)
		if err != nil {
			return eval.Outcome{Run: id, Status: "not started"}, fmt.Sprintf("%s: input: %v", c.Path, err)
		}
		in.Input = b
	}
	return r.execute(ctx, id, in, c.Messages)
}

// execute starts a run of in as id, sends a conversation its messages,
// waits for its end (at most the runner's timeout) and reads what it did;
// reason says why a run that did not complete stopped. A run it leaves
// open (a conversation that answered its messages, one past the timeout,
// one the eval was interrupted in) is ended before it returns.
func (r *evalRunner) execute(evalCtx context.Context, id string, in workflows.AgentInput, messages []eval.Message) (eval.Outcome, string) {
	o := eval.Outcome{Run: id}
	ctx, cancel := context.WithTimeout(evalCtx, r.timeout)
	defer cancel()
	// An id in use is an error, never another run's handle to read.
	opts := client.StartWorkflowOptions{ID: id, TaskQueue: r.taskQueue,
		WorkflowExecutionErrorWhenAlreadyStarted: true, WorkflowIDReusePolicy: enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE}
	wr, err := r.c.ExecuteWorkflow(ctx, opts, workflows.WorkflowName, in)
	if err != nil {
		r.startFailed(err)
		o.Status = "not started"
		return o, err.Error()
	}
	r.open.add(id)
	w := r.await(ctx, wr, messages)
	taken := w.closed || w.conversation != nil
	if !w.closed {
		r.end(id)
		if w.why == "" && w.conversation == nil {
			w.why = r.notDone(evalCtx, w.phase)
		}
		taken = taken || evalCtx.Err() != nil || r.tookFirstTask(id)
	}
	r.open.remove(id)
	r.started(taken)
	if w.conversation != nil {
		return *w.conversation, ""
	}
	res, err := w.res, w.err
	reason := ""
	if err != nil {
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Type() != signals.StoppedErrorType || appErr.Details(&res) != nil {
			o.Status = "failed"
			if w.why != "" {
				return o, w.why
			}
			return o, err.Error()
		}
		reason = res.Reason
		if res.LastError != "" && !strings.Contains(reason, res.LastError) {
			reason += ": " + res.LastError // once: a reason may say it already
		}
	}
	// Measured as an export measures the recording (eval.OutcomeOf), so
	// a run and its recording compare like for like; a trace the run
	// does not answer leaves its loops and repairs at 0.
	tr, _ := queryTrace(ctx, r.c, id, "")
	return eval.OutcomeOf(eval.Recording{WorkflowID: id, Result: &res, Nodes: tr.Nodes}), reason
}
