package bench

import (
	"context"
	"errors"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/proto"

	"github.com/unstuck-dev/unstuck/internal/testdouble/deskchain"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// handoffChainBefore is the commit before the handoff context stopped
// nesting (issue 32): its worker is the "before" side.
const handoffChainBefore = "1f1e0ad"

// BenchmarkHandoffChain (issue 32): a run handed along a chain of desks
// (internal/testdouble/deskchain: four 1 KiB calls each, then a handoff),
// on a worker process of this tree and, for 60 desks, of the commit
// before, one after the other. Reported per chain: whether it completed
// (within 6 minutes), its generations, the largest carried input of a
// generation (the continue-as-new payload), the longest workflow task,
// and the workflow tasks that failed (a task over the SDK's 1 s deadlock
// detection fails on every attempt: the run is wedged).
func BenchmarkHandoffChain(b *testing.B) {
	now := buildWorker(b)
	before := buildWorkerAt(b, handoffChainBefore)
	for range b.N {
		for _, c := range []struct {
			desks int
			side  string
			bin   string
		}{{60, "before (" + handoffChainBefore + ")", before}, {60, "now", now}, {200, "now", now}} {
			f := handoffChainRun(b, c.bin, c.desks)
			b.Logf("%d desks, %s: completed %v in %.0f s, %d generations, largest carried input %d KiB, longest workflow task %d ms, %d failed workflow tasks in history, %d attempts of the task pending at the end",
				c.desks, c.side, f.completed, f.took.Seconds(), f.generations, f.maxInput>>10, f.maxTask.Milliseconds(), f.failedTasks, f.pendingAttempts)
		}
	}
}

type chainFigures struct {
	completed   bool
	took        time.Duration
	generations int
	maxInput    int
	maxTask     time.Duration
	failedTasks int
	// maxHistory: the bytes of the largest generation's history;
	// maxCANTask: the longest workflow task that continued as new.
	maxHistory int
	maxCANTask time.Duration
	// pendingAttempts: a run still open at the end, the attempts of its
	// workflow task (a task failing on every attempt is written to the
	// history once).
	pendingAttempts int32
}

func handoffChainRun(b *testing.B, bin string, desks int) chainFigures {
	b.Helper()
	s := startScripted(b, bin, "chain", map[string]scriptedmodel.Script{deskchain.Model: deskchain.Script(desks - 1)},
		func(modelURL string) string { return deskchain.Config(modelURL, desks) })
	defer s.close()
	queue, ctx, start := s.queue, context.Background(), time.Now()
	run := s.start(b, queue, workflows.AgentInput{Agent: deskchain.Desk(0), Task: "pass it on"})
	firstRunID := run.GetRunID()
	wait, cancel := context.WithTimeout(ctx, 6*time.Minute)
	err := run.Get(wait, nil)
	cancel()
	f := chainFigures{completed: err == nil, took: time.Since(start)}
	var deadline interface{ Timeout() bool }
	if err != nil && !errors.As(err, &deadline) && !errors.Is(err, context.DeadlineExceeded) {
		b.Logf("%d desks: the run ended with %v", desks, err)
	}
	generationFigures(b, queue, firstRunID, &f)
	if !f.completed {
		if d, err := devClient.DescribeWorkflowExecution(ctx, queue, ""); err == nil {
			f.pendingAttempts = d.GetPendingWorkflowTask().GetAttempt()
		}
		_ = devClient.TerminateWorkflow(ctx, queue, "", "the benchmark's time is up")
	}
	return f
}

// generationFigures walks the generations of a run from its first run id
// and adds what they say to f: how many, the largest carried input, the
// longest workflow task, the failed ones, the largest history.
func generationFigures(b *testing.B, workflowID, firstRunID string, f *chainFigures) {
	b.Helper()
	sizes := map[int]int{}
	started := map[int64]time.Time{}
	var lastTask time.Duration
	eachGeneration(b, workflowID, firstRunID, func(gen int, ev *historypb.HistoryEvent) {
		f.generations = max(f.generations, gen+1)
		sizes[gen] += proto.Size(ev)
		f.maxHistory = max(f.maxHistory, sizes[gen])
		switch {
		case ev.GetWorkflowExecutionStartedEventAttributes() != nil:
			input := 0
			for _, p := range ev.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads() {
				input += len(p.GetData())
			}
			f.maxInput = max(f.maxInput, input)
		case ev.GetWorkflowTaskStartedEventAttributes() != nil:
			started[ev.GetEventId()] = ev.GetEventTime().AsTime()
		case ev.GetWorkflowTaskCompletedEventAttributes() != nil:
			a := ev.GetWorkflowTaskCompletedEventAttributes()
			lastTask = ev.GetEventTime().AsTime().Sub(started[a.GetStartedEventId()])
			f.maxTask = max(f.maxTask, lastTask)
		case ev.GetWorkflowTaskFailedEventAttributes() != nil:
			f.failedTasks++
		case ev.GetWorkflowExecutionContinuedAsNewEventAttributes() != nil:
			f.maxCANTask = max(f.maxCANTask, lastTask)
		}
	})
}
