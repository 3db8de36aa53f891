package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// scriptedWorker is the setting of the benchmarks that run an agent
// against a model of their own: a scripted model (a test double, its log
// silenced) and a fresh worker process of a config naming it, on a task
// queue of its own.
type scriptedWorker struct {
	model *scriptedmodel.Server
	queue string
	stop  func()
}

// startScripted starts a scripted model serving scripts (with opts) and a
// worker process (bin) of the config cfg writes for the model's URL, on a
// queue named after prefix; close stops both.
func startScripted(b *testing.B, bin, prefix string, scripts map[string]scriptedmodel.Script,
	cfg func(modelURL string) string, opts ...scriptedmodel.Option) *scriptedWorker {
	b.Helper()
	opts = append([]scriptedmodel.Option{scriptedmodel.WithLogf(func(string, ...any) {})}, opts...)
	m, err := scriptedmodel.Start("127.0.0.1:0", scripts, "", opts...)
	if err != nil {
		b.Fatal(err)
	}
	queue, stop := freshWorker(b, bin, cfg(m.URL()), prefix)
	return &scriptedWorker{model: m, queue: queue, stop: stop}
}

// close stops the worker, then the model.
func (s *scriptedWorker) close() {
	s.stop()
	_ = s.model.Close()
}

// start starts a run of in on the worker's queue, with workflow id id.
func (s *scriptedWorker) start(b *testing.B, id string, in workflows.AgentInput) client.WorkflowRun {
	b.Helper()
	run, err := devClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: s.queue},
		workflows.WorkflowName, in)
	if err != nil {
		b.Fatal(err)
	}
	return run
}

// runOutcome is how one of runAll's runs ended: its workflow id, the id
// of its first run (a chain's), its result (when it completed), its error
// and its time from its start.
type runOutcome struct {
	id, firstRunID string
	result         workflows.AgentResult
	err            error
	took           time.Duration
}

// runAll starts n runs of in at once on queue (workflow ids queue-0,
// queue-1, ...), waits for each at most within, ends those still open
// then, and answers how each ended and the wall time from the first start
// to the last end.
func runAll(queue string, n int, in workflows.AgentInput, within time.Duration) ([]runOutcome, time.Duration) {
	out := make([]runOutcome, n)
	ctx := context.Background()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			o := &out[i]
			o.id = fmt.Sprintf("%s-%d", queue, i)
			began := time.Now()
			run, err := devClient.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: o.id, TaskQueue: queue},
				workflows.WorkflowName, in)
			if err != nil {
				o.err = err
				return
			}
			o.firstRunID = run.GetRunID() // Get follows the chain: read the first id before
			wait, cancel := context.WithTimeout(ctx, within)
			o.err = run.Get(wait, &o.result)
			o.took = time.Since(began)
			if errors.Is(wait.Err(), context.DeadlineExceeded) {
				o.err = fmt.Errorf("the run did not end within %s", within)
				_ = devClient.TerminateWorkflow(ctx, o.id, "", "the benchmark's time is up")
			}
			cancel()
		})
	}
	wg.Wait()
	return out, time.Since(start)
}

// runsFigures sums up runAll's outcomes: runs completed and failed, and
// the median and longest run time.
type runsFigures struct {
	completed, failed int
	wall, p50, max    time.Duration
}

func summarizeRuns(outcomes []runOutcome, wall time.Duration) runsFigures {
	f := runsFigures{wall: wall}
	for _, o := range outcomes {
		if o.err == nil {
			f.completed++
		} else {
			f.failed++
		}
		f.max = max(f.max, o.took)
	}
	f.p50 = time.Duration(medianBy(outcomes, func(o runOutcome) float64 { return float64(o.took) }))
	return f
}
