package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// waitingFloodBefore is the commit before waiting runs continued as new
// (issue 32, item 4): its worker is the "before" side.
const waitingFloodBefore = "ce7e50a"

// BenchmarkWaitingFlood (issue 32, item 4): a run waiting for a person's
// approval receives a flood of signals of 16 KiB each (replies nothing
// waits for and approvals of calls it does not have: each is recorded
// and ignored), on a worker process of the commit before and of this
// tree, one after the other, on the dev server's default limits
// (continue-as-new suggested at 4 MiB or 4096 events; a run is
// terminated at 50 MiB). Reported per side: the signals the run took
// before it closed, how it ended, its generations, the largest history of
// a generation, the longest workflow task that continued the run as new,
// and, for a run still waiting, whether approving the call then runs it
// once and completes the run.
func BenchmarkWaitingFlood(b *testing.B) {
	now := buildWorker(b)
	before := buildWorkerAt(b, waitingFloodBefore)
	for range b.N {
		for _, c := range []struct {
			side    string
			bin     string
			signals int
		}{{"before (" + waitingFloodBefore + ")", before, 10000}, {"now", now, 10000}} {
			f := waitingFloodRun(b, c.bin, c.signals, 16<<10)
			b.Logf("%s: %d of %d signals of 16 KiB taken in %.0f s; %s; %d generations, largest history of a generation %d KiB (%d events), continue-as-new workflow task median %d ms, longest %d ms (longest of any task %d ms); after the flood: %s",
				c.side, f.taken, c.signals, f.took.Seconds(), f.ended, f.h.generations, f.h.maxBytes>>10, f.h.maxEvents,
				f.h.medianCANTask().Milliseconds(), f.h.maxCANTask().Milliseconds(), f.h.maxTask.Milliseconds(), f.after)
		}
	}
}

type floodFigures struct {
	taken int
	took  time.Duration
	ended string
	h     floodChain
	after string
}

// floodChain is what the histories of a chain's generations show.
type floodChain struct {
	generations         int
	maxBytes, maxEvents int
	maxTask             time.Duration
	// canTasks: each generation's last workflow task, which continued it
	// as new.
	canTasks []time.Duration
}

func (c floodChain) maxCANTask() time.Duration {
	if len(c.canTasks) == 0 {
		return 0
	}
	return slices.Max(c.canTasks)
}

func (c floodChain) medianCANTask() time.Duration {
	if len(c.canTasks) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(c.canTasks))
	return s[len(s)/2]
}

const floodModel = "flood"

func floodConfig(modelURL string) string {
	return fmt.Sprintf(`
model: { base_url: %q, name: %s }
tools:
  - { name: book, builtin: noop, effect: write, approval: always, parameters: { type: object } }
agents:
  - { name: booker, instructions: Book., tools: [book], policies: { human_timeout: 24h } }
`, modelURL, floodModel)
}

func waitingFloodRun(b *testing.B, bin string, n, size int) floodFigures {
	b.Helper()
	s := startScripted(b, bin, "flood", map[string]scriptedmodel.Script{floodModel: scriptedmodel.Sequence(
		scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"}),
		scriptedmodel.CallTurn("final_output", map[string]any{"done": true}),
	)}, floodConfig)
	defer s.close()
	queue, ctx := s.queue, context.Background()
	run := s.start(b, queue, workflows.AgentInput{Agent: "booker", Task: "book a seat"})
	firstRunID := run.GetRunID()
	callID := awaitPendingApproval(b, queue)

	// The flood, from 4 senders; a signal the server refuses (the run
	// is closed) ends it.
	reason := strings.Repeat("x", size)
	var taken atomic.Int64
	var closed atomic.Bool
	next := atomic.Int64{}
	start := time.Now()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !closed.Load() {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				var payload any = map[string]any{"text": fmt.Sprint("flood ", i), "reason": reason}
				name := signals.Reply
				if i%2 == 1 {
					name, payload = signals.Approve, map[string]any{"call_id": "n999", "decision": "approve", "reason": reason}
				}
				if err := devClient.SignalWorkflow(ctx, queue, "", name, payload); err != nil {
					closed.Store(true)
					return
				}
				taken.Add(1)
			}
		})
	}
	wg.Wait()
	f := floodFigures{taken: int(taken.Load()), took: time.Since(start)}

	desc, err := devClient.DescribeWorkflowExecution(ctx, queue, "")
	if err != nil {
		b.Fatal(err)
	}
	status := desc.GetWorkflowExecutionInfo().GetStatus()
	f.ended = "still " + strings.ToLower(strings.TrimPrefix(status.String(), "WORKFLOW_EXECUTION_STATUS_"))
	if status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		f.after = approveAfterFlood(b, queue, callID)
	} else {
		f.ended = strings.ToLower(strings.TrimPrefix(status.String(), "WORKFLOW_EXECUTION_STATUS_"))
		f.after = "nothing to approve: the run is closed"
	}
	f.h = chainHistories(b, queue, firstRunID)
	if status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		_ = devClient.TerminateWorkflow(ctx, queue, "", "the benchmark is over")
	}
	return f
}

// awaitPendingApproval waits until the run lists one call waiting for
// approval, and answers its id.
func awaitPendingApproval(b *testing.B, id string) string {
	b.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var st signals.Status
		if v, err := devClient.QueryWorkflow(context.Background(), id, "", signals.QueryStatus); err == nil && v.Get(&st) == nil &&
			len(st.PendingApprovals) == 1 {
			return st.PendingApprovals[0].CallID
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatalf("%s: no call waited for approval within a minute", id)
	return ""
}

// approveAfterFlood checks the run still waits for the same call, approves
// it and says how the run ended and how often the tool ran.
func approveAfterFlood(b *testing.B, id, callID string) string {
	b.Helper()
	ctx := context.Background()
	var st signals.Status
	v, err := devClient.QueryWorkflow(ctx, id, "", signals.QueryStatus)
	if err != nil || v.Get(&st) != nil {
		return fmt.Sprintf("status query failed: %v", err)
	}
	if len(st.PendingApprovals) != 1 || st.PendingApprovals[0].CallID != callID {
		return fmt.Sprintf("the run no longer waits for %s (pending: %v)", callID, st.PendingApprovals)
	}
	h, err := devClient.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: signals.Approve,
		Args: []any{signals.ApproveRequest{CallID: callID, Decision: "approve"}}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	if err != nil {
		return fmt.Sprintf("approve %s: %v", callID, err)
	}
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var res workflows.AgentResult
	if err := devClient.GetWorkflow(ctx, id, "").Get(wait, &res); err != nil {
		return fmt.Sprintf("approved %s in generation %d; the run ended with %v", callID, st.Generation, err)
	}
	return fmt.Sprintf("approved %s in generation %d (phase %s); the run %s, %d tool runs", callID, st.Generation, st.Phase, res.Status, toolRuns(b, id))
}

// toolRuns counts the RunTool activities scheduled over a chain.
func toolRuns(b *testing.B, id string) int {
	b.Helper()
	runs := 0
	desc, err := devClient.DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil {
		b.Fatal(err)
	}
	// Every generation, from the first run of the chain.
	eachGeneration(b, id, desc.GetWorkflowExecutionInfo().GetFirstRunId(), func(_ int, ev *historypb.HistoryEvent) {
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "RunTool" {
			runs++
		}
	})
	return runs
}

// chainHistories reads every generation of a chain: how many, the largest
// history (bytes and events), the longest workflow task, and the workflow
// tasks that ended a generation by continuing as new.
func chainHistories(b *testing.B, id, firstRunID string) floodChain {
	b.Helper()
	var c floodChain
	bytes, events := map[int]int{}, map[int]int{}
	started := map[int64]time.Time{}
	var lastTask time.Duration
	eachGeneration(b, id, firstRunID, func(gen int, ev *historypb.HistoryEvent) {
		c.generations = max(c.generations, gen+1)
		bytes[gen] += proto.Size(ev)
		events[gen]++
		c.maxBytes, c.maxEvents = max(c.maxBytes, bytes[gen]), max(c.maxEvents, events[gen])
		switch {
		case ev.GetWorkflowTaskStartedEventAttributes() != nil:
			started[ev.GetEventId()] = ev.GetEventTime().AsTime()
		case ev.GetWorkflowTaskCompletedEventAttributes() != nil:
			lastTask = ev.GetEventTime().AsTime().Sub(started[ev.GetWorkflowTaskCompletedEventAttributes().GetStartedEventId()])
			c.maxTask = max(c.maxTask, lastTask)
		case ev.GetWorkflowExecutionContinuedAsNewEventAttributes() != nil:
			c.canTasks = append(c.canTasks, lastTask)
		}
	})
	return c
}
