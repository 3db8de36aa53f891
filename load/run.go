package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// ErrStoppedEarly is wrapped by Run's error when the load stopped before
// starting every run: the first run failed, so the others would too.
var ErrStoppedEarly = errors.New("the load stopped early")

// Run starts o.Runs runs of o.Agent on o.TaskQueue, at most o.Concurrency
// at a time, waits for each to end and reports. Workers must already poll
// the task queue (a deployment's, or StartLocal's); Run waits up to
// o.PollerWait for one and fails naming the queue if none comes.
//
// The first run goes alone: a mistake every run would share (an agent the
// workers do not know, a broken tool) then costs one failed run, reported
// with its reason, instead of o.Runs of them. Run returns the report with
// an error wrapping ErrStoppedEarly in that case. When ctx ends, no more
// runs are started and those in flight are left to the server (counted as
// abandoned); the report covers what ended.
func Run(ctx context.Context, c client.Client, o Options) (*Report, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if err := waitForPollers(ctx, c, o); err != nil {
		return nil, err
	}
	l := &loader{c: c, o: o, outcomes: make([]outcome, o.Runs)}
	l.begin = time.Now()
	stopProgress := l.startProgress(ctx)

	l.runOne(ctx, 0)
	first := l.outcomes[0]
	stopped := ""
	if first.failed() && o.Runs > 1 {
		stopped = fmt.Sprintf("the first run (%s) failed with %s: %s; the other %d runs were not started",
			first.id, first.kind, first.err, o.Runs-1)
	} else {
		l.runRest(ctx)
	}
	wall := time.Since(l.begin)
	stopProgress()

	r := l.report(wall)
	r.StoppedEarly = stopped
	l.readHistories(ctx, r)
	l.finalServerFigures(ctx, r)
	if stopped != "" {
		return r, fmt.Errorf("%w: %s", ErrStoppedEarly, stopped)
	}
	return r, nil
}

// loader is one load in progress.
type loader struct {
	c     client.Client
	o     Options
	begin time.Time

	started, completed, failed, abandoned atomic.Int64
	next                                  atomic.Int64 // the index of the next run to start

	// outcomes has one slot per run, written by the goroutine running it.
	outcomes []outcome

	mu          sync.Mutex
	peakBacklog backlog // the largest backlogs the progress samples saw
	sampleErr   string  // why the server's task queue figures could not be read
}

// outcome is how one run ended.
type outcome struct {
	id, runID string
	done      bool // the run ended (completed or failed), not abandoned
	latency   time.Duration
	steps     int
	kind      string // failure kind, "" for a completed run
	err       error
	// spend is what the run spent, from its result or its AgentStopped
	// report (nil when it says nothing).
	spend *signals.SpendStatus
}

func (o outcome) failed() bool { return o.done && o.kind != "" }

// runRest runs the runs after the first with o.Concurrency goroutines,
// each taking the next index until none is left.
func (l *loader) runRest(ctx context.Context) {
	l.next.Store(1)
	var wg sync.WaitGroup
	for range l.o.Concurrency {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(l.next.Add(1) - 1)
				if i >= l.o.Runs {
					return
				}
				l.runOne(ctx, i)
			}
		})
	}
	wg.Wait()
}

// runOne starts run i and waits for its end. Its latency is the client's:
// from asking the server to start it to seeing its result.
func (l *loader) runOne(ctx context.Context, i int) {
	id := fmt.Sprintf("%s-%d", l.o.IDPrefix, i)
	in := workflows.AgentInput{Agent: l.o.Agent, Task: l.o.Task}
	opts := client.StartWorkflowOptions{
		ID:                                       id,
		TaskQueue:                                l.o.TaskQueue,
		WorkflowExecutionTimeout:                 l.o.RunTimeout,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		TypedSearchAttributes:                    workflows.StartAttributes(l.o.Agent), // as `unstuck run` does
	}
	out := outcome{id: id}
	begin := time.Now()
	l.started.Add(1)
	run, err := l.c.ExecuteWorkflow(ctx, opts, workflows.WorkflowName, in)
	if err == nil {
		out.runID = run.GetRunID() // Get follows the chain: read the first id now
		var res workflows.AgentResult
		err = run.Get(ctx, &res)
		out.steps, out.spend = res.Steps, res.Spend
		var stopped *temporal.ApplicationError
		if errors.As(err, &stopped) && stopped.Type() == signals.StoppedErrorType {
			var rep workflows.AgentResult
			if stopped.Details(&rep) == nil {
				out.spend = rep.Spend
			}
		}
	} else {
		err = &startError{err}
	}
	out.latency = time.Since(begin)
	switch {
	case err != nil && ctx.Err() != nil:
		l.abandoned.Add(1) // interrupted: the run goes on without us
	case err != nil:
		out.done, out.kind, out.err = true, failureKind(err), err
		l.failed.Add(1)
	default:
		out.done = true
		l.completed.Add(1)
	}
	l.outcomes[i] = out
}
