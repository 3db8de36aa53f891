package testsuite

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// inFlight is a slow tool server that counts the calls it is serving at
// once and keeps the most it saw, and when each call arrived.
type inFlight struct {
	*toolServer
	mu      sync.Mutex
	now     int
	most    int
	arrived []time.Time
}

func newInFlight(t *testing.T, busy time.Duration) *inFlight {
	f := &inFlight{}
	f.toolServer = newToolServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		f.mu.Lock()
		f.now++
		f.most = max(f.most, f.now)
		f.arrived = append(f.arrived, time.Now())
		f.mu.Unlock()
		time.Sleep(busy)
		f.mu.Lock()
		f.now--
		f.mu.Unlock()
		writeJSON(w, 200, map[string]any{"done": n})
	})
	return f
}

// limitedConfig is one agent calling the tool slow with the limits given
// (a YAML fragment of the tool's mapping).
func limitedConfig(url, limits string) string {
	return `
model: { base_url: "{{MODEL}}", name: limited }
tools:
  - { name: slow, http: { url: "` + url + `/slow" }, ` + limits + `, parameters: { type: object, properties: { i: {type: integer} } } }
agents:
  - { name: caller, instructions: Call., tools: [slow] }
`
}

// sixCalls is a reply of six independent calls of slow, then the answer.
func sixCalls() scriptedmodel.Script {
	var calls []scriptedmodel.Call
	for i := range 6 {
		calls = append(calls, scriptedmodel.NewCall("slow", map[string]any{"i": i}))
	}
	return scriptedmodel.Sequence(scriptedmodel.CallsTurn(calls...), scriptedmodel.CallTurn("final_output", map[string]any{"ok": true}))
}

// scheduledQueues lists the task queue of each RunTool activity of a run.
func scheduledQueues(t *testing.T, run client.WorkflowRun) []string {
	t.Helper()
	var queues []string
	forEachEvent(t, run, func(ev *historypb.HistoryEvent) {
		if a := ev.GetActivityTaskScheduledEventAttributes(); a.GetActivityType().GetName() == "RunTool" {
			queues = append(queues, a.GetTaskQueue().GetName())
		}
	})
	return queues
}

// forEachEvent reads a run's history, event by event.
func forEachEvent(t *testing.T, run client.WorkflowRun, fn func(*historypb.HistoryEvent)) {
	t.Helper()
	it := serverClient.GetWorkflowHistory(context.Background(), run.GetID(), run.GetRunID(), false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		fn(ev)
	}
}

// A tool with max_concurrent: 2 and a reply of six calls: the six go to
// the tool's own task queue, the worker runs two at a time (the tool
// never sees a third while two are in flight), the rest wait without
// failing, and the run completes with all six answered.
func TestToolMaxConcurrentBoundsCallsInFlight(t *testing.T) {
	t.Parallel()
	tool := newInFlight(t, 300*time.Millisecond)
	s := newStack(t, limitedConfig(tool.URL, "max_concurrent: 2"), map[string]scriptedmodel.Script{"limited": sixCalls()})
	run := s.start(workflows.AgentInput{Agent: "caller", Task: "call six times"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", res.Status)
	require.JSONEq(t, `{"ok": true}`, string(res.Output))

	tool.mu.Lock()
	most := tool.most
	tool.mu.Unlock()
	require.Equal(t, 2, most, "calls of the tool in flight at once: never above max_concurrent, and it was reached")
	require.Len(t, tool.requests("/slow"), 6, "each call once: waiting in the queue is not a failure to retry")
	results := scriptedmodel.LastToolResults(s.model.Requests()[1])
	require.Len(t, results, 6)
	for _, r := range results {
		require.False(t, r.IsError(), r.Content)
	}
	queues := scheduledQueues(t, run)
	require.Len(t, queues, 6)
	for _, q := range queues {
		require.Equal(t, s.queue+"/tool/slow", q)
	}

	recordAndReplay(t, run, "tool_max_concurrent")
}

// A tool with rate: 2/s and a reply of six calls: the calls go to the
// tool's task queue, whose worker asks the server for the rate; none
// fails for waiting, and the run completes. The spread of the calls is
// logged, not asserted: the dev server's limiter is not one to count on
// at small rates. Measured (six calls scheduled together, four runs):
// all six within 64 ms in two runs, 4 then 2 two seconds later in one,
// 1, 2 at 2 s and 2 at 4 s in another. A count in any window would be
// a flaky test, so the rate itself is left to Temporal.
func TestToolRateRoutesCallsToItsQueue(t *testing.T) {
	t.Parallel()
	tool := newInFlight(t, 0)
	s := newStack(t, limitedConfig(tool.URL, "rate: 2/s"), map[string]scriptedmodel.Script{"limited": sixCalls()})
	run := s.start(workflows.AgentInput{Agent: "caller", Task: "call six times"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", res.Status)
	require.Len(t, tool.requests("/slow"), 6)
	for _, r := range scriptedmodel.LastToolResults(s.model.Requests()[1]) {
		require.False(t, r.IsError(), r.Content)
	}
	queues := scheduledQueues(t, run)
	require.Len(t, queues, 6)
	for _, q := range queues {
		require.Equal(t, s.queue+"/tool/slow", q)
	}

	tool.mu.Lock()
	arrived := slices.Clone(tool.arrived)
	tool.mu.Unlock()
	slices.SortFunc(arrived, time.Time.Compare)
	var after []time.Duration
	for _, a := range arrived[1:] {
		after = append(after, a.Sub(arrived[0]).Round(time.Millisecond))
	}
	t.Logf("rate 2/s, arrivals after the first: %v", after)
}

// A busy worker (one activity slot) and a reply of ten calls of a tool
// whose attempt takes 800 ms, with one attempt allowed (timeout 1s): the
// last call waits about 7 s in the task queue for the slot, longer than
// its one attempt may run. Waiting for a worker is not a failure: every
// call runs, once, and answers (before, a schedule-to-close bound of
// the attempts' time counted the wait and timed the last calls out
// unsent).
func TestToolCallsWaitingForABusyWorkerDoNotTimeOut(t *testing.T) {
	t.Parallel()
	const calls = 10
	tool := newInFlight(t, 800*time.Millisecond)
	cfg := `
worker: { max_concurrent_activities: 1 }
model: { base_url: "{{MODEL}}", name: busy }
tools:
  - { name: slow, http: { url: "` + tool.URL + `/slow", timeout: 1s }, retry: { max_attempts: 1 }, parameters: { type: object, properties: { i: {type: integer} } } }
agents:
  - { name: caller, instructions: Call., tools: [slow] }
`
	var batch []scriptedmodel.Call
	for i := range calls {
		batch = append(batch, scriptedmodel.NewCall("slow", map[string]any{"i": i}))
	}
	script := scriptedmodel.Sequence(scriptedmodel.CallsTurn(batch...), scriptedmodel.CallTurn("final_output", map[string]any{"ok": true}))
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"busy": script})
	run := s.start(workflows.AgentInput{Agent: "caller", Task: "call ten times"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", res.Status)

	tool.mu.Lock()
	most := tool.most
	tool.mu.Unlock()
	require.Equal(t, 1, most, "one slot: the calls ran one at a time")
	require.Len(t, tool.requests("/slow"), calls, "every call reached the tool, once")
	results := scriptedmodel.LastToolResults(s.model.Requests()[1])
	require.Len(t, results, calls)
	for _, r := range results {
		require.False(t, r.IsError(), r.Content)
	}

	recordAndReplay(t, run, "tool_queue_wait")
}
