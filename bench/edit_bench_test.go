package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
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

// Edit and resume (issue 11): a run is edited while it waits for an
// approval, continues as new from the edited node, and only what depended
// on the edit runs again. The tools of these runs are HTTP tools of a local
// server that counts its hits, so a call that runs is a hit and a call the
// effect ledger answers is not.

// tools is the HTTP tool server of the edit benchmarks.
var tools *toolServer

// toolServer answers every POST with {"tool", "got": <the arguments>} (but
// /bytes, see writeBytesResult, and /slowlookup, see writeSlowLookup) and counts the hits per tool (the URL path).
type toolServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func startToolServer() *toolServer {
	t := &toolServer{hits: map[string]int{}}
	t.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !json.Valid(body) {
			body = []byte("{}")
		}
		name := strings.TrimPrefix(r.URL.Path, "/")
		t.mu.Lock()
		t.hits[name]++
		t.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch name {
		case "bytes": // the handoff benchmarks' results of a given size
			writeBytesResult(w, body)
			return
		case "slowlookup": // the streamed-calls benchmark's timed calls
			writeSlowLookup(w, body)
			return
		}
		fmt.Fprintf(w, `{"tool": %q, "got": %s}`, name, body)
	}))
	return t
}

// counts is a copy of the hits so far.
func (t *toolServer) counts() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]int, len(t.hits))
	for k, v := range t.hits {
		out[k] = v
	}
	return out
}

// editTools are the HTTP tools of the edit runs (config lines): step, a
// read; hold, approval: always, which keeps a run waiting to be edited;
// lookup, write (effect: write, reexecute: reuse) and confirm.
func editTools(url string) string {
	var b strings.Builder
	for _, t := range []struct{ name, extra string }{
		{"step", ""}, {"hold", "approval: always, "}, {"lookup", ""}, {"write", "effect: write, "}, {"confirm", ""},
	} {
		fmt.Fprintf(&b, "  - { name: %s, %shttp: { method: POST, url: %q }, parameters: { type: object } }\n", t.name, t.extra, url+"/"+t.name)
	}
	return b.String()
}

const editAgent = `  - { name: editbench, instructions: Benchmark., tools: [step, hold, lookup, write, confirm], policies: { max_steps: 2000, human_timeout: 1h } }`

// editScript is the scripted model of the edit runs. "edit-steps=N": N
// steps of one step call, then hold (approved, then final_output).
// "ledger": look-up, write, confirm, hold, final_output; the write's
// arguments do not depend on the look-up, so an edit of the look-up
// re-issues the identical write.
func editScript(task string, turn int) (scriptedmodel.Turn, bool) {
	if k, ok := strings.CutPrefix(task, "edit-steps="); ok {
		n, _ := strconv.Atoi(k)
		switch {
		case turn < n:
			return scriptedmodel.CallTurn("step", map[string]any{"i": turn}), true
		case turn == n:
			return scriptedmodel.CallTurn("hold", map[string]any{}), true
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"steps": n}), true
	}
	if task == "ledger" {
		calls := []scriptedmodel.Turn{
			scriptedmodel.CallTurn("lookup", map[string]any{"q": "order"}),
			scriptedmodel.CallTurn("write", map[string]any{"order": 7}),
			scriptedmodel.CallTurn("confirm", map[string]any{"order": 7}),
			scriptedmodel.CallTurn("hold", map[string]any{}),
		}
		if turn < len(calls) {
			return calls[turn], true
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"done": true}), true
	}
	return scriptedmodel.Turn{}, false
}

const editSteps = 5 // step calls of the runs edited, before hold

// editRun is one workflow of the edit benchmarks; first is its first run.
type editRun struct {
	id, first string
}

func startEditRun(b *testing.B, task string) editRun {
	b.Helper()
	runSeq++
	id := fmt.Sprintf("bench-edit-%d-%d", time.Now().UnixNano(), runSeq)
	run, err := devClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue},
		workflows.WorkflowName, workflows.AgentInput{Agent: "editbench", Task: task})
	if err != nil {
		b.Fatal(err)
	}
	return editRun{id: id, first: run.GetRunID()}
}

// awaitApproval polls the run's status until generation gen waits for an
// approval (hold), and answers the call waiting.
func (e editRun) awaitApproval(b *testing.B, gen int) string {
	b.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var st signals.Status
		if err := query(e.id, signals.QueryStatus, &st); err == nil &&
			st.Generation == gen && st.Phase == signals.PhaseAwaitingApproval && len(st.PendingApprovals) > 0 {
			return st.PendingApprovals[0].CallID
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatalf("%s: generation %d did not come to wait for an approval", e.id, gen)
	return ""
}

func query(id, name string, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := devClient.QueryWorkflow(ctx, id, "", name)
	if err != nil {
		return err
	}
	return v.Get(out)
}

// callNode is the id of the nth (from 0) call of tool that is still valid.
func (e editRun) callNode(b *testing.B, tool string, nth int) string {
	b.Helper()
	var tr signals.Trace
	if err := query(e.id, signals.QueryTrace, &tr); err != nil {
		b.Fatal(err)
	}
	for _, n := range tr.Nodes {
		if n.Kind == signals.KindCall && n.Tool == tool && n.Status != signals.StatusInvalidated {
			if nth == 0 {
				return n.ID
			}
			nth--
		}
	}
	b.Fatalf("%s: no such call of %s in the trace", e.id, tool)
	return ""
}

// update sends an update and waits for its answer.
func (e editRun) update(b *testing.B, name string, req, out any) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, err := devClient.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: e.id, UpdateName: name, Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		b.Fatalf("%s %s: %v", name, e.id, err)
	}
	if err := h.Get(ctx, out); err != nil {
		b.Fatalf("%s %s: %v", name, e.id, err)
	}
}

func (e editRun) edit(b *testing.B, nodeID string, output string) signals.EditResult {
	b.Helper()
	var res signals.EditResult
	e.update(b, signals.Edit, signals.EditRequest{NodeID: nodeID, Output: json.RawMessage(output), Audit: signals.Audit{By: "bench"}}, &res)
	return res
}

func (e editRun) approve(b *testing.B, callID string) {
	b.Helper()
	var out any
	e.update(b, signals.Approve, signals.ApproveRequest{CallID: callID, Decision: signals.DecisionApprove}, &out)
}

// finish waits for the run (the last of its chain) to complete.
func (e editRun) finish(b *testing.B) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := devClient.GetWorkflow(ctx, e.id, "").Get(ctx, nil); err != nil {
		b.Fatalf("%s: %v", e.id, err)
	}
}

func (e editRun) terminate(b *testing.B) {
	b.Helper()
	if err := devClient.TerminateWorkflow(context.Background(), e.id, "", "benchmark done"); err != nil {
		b.Fatal(err)
	}
}

// untilEvent long-polls a run's history, calling f with each event until
// f answers true.
func untilEvent(b *testing.B, id, runID string, f func(*historypb.HistoryEvent) bool) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	iter := devClient.GetWorkflowHistory(ctx, id, runID, true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			b.Fatalf("%s/%s: %v", id, runID, err)
		}
		if f(ev) {
			return
		}
	}
	b.Fatalf("%s/%s: closed before the event awaited", id, runID)
}

// continuedRun is the run an edit continued runID as.
func continuedRun(b *testing.B, id, runID string) string {
	b.Helper()
	next := ""
	untilEvent(b, id, runID, func(ev *historypb.HistoryEvent) bool {
		next = ev.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
		return next != ""
	})
	return next
}

// resumeTimes are the server's times of a run's way to its first model
// request or tool call: the run started, its first activity (the agent
// resolved, or the carried state verified) scheduled and completed, and
// its first model request or tool call scheduled.
type resumeTimes struct {
	started, scheduled, completed, work time.Time
}

func readResumeTimes(b *testing.B, id, runID string) resumeTimes {
	b.Helper()
	var t resumeTimes
	untilEvent(b, id, runID, func(ev *historypb.HistoryEvent) bool {
		at := ev.GetEventTime().AsTime()
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
			t.started = at
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			if t.completed.IsZero() {
				t.completed = at
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			if t.scheduled.IsZero() {
				t.scheduled = at
			}
			switch ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() {
			case "CallModel", "RunTool":
				t.work = at
				return true
			}
		}
		return false
	})
	return t
}

// latency is one measured way from a request (the start, or the edit
// update) sent at t0 to the first model request, in phases.
type latency struct {
	toRun      time.Duration // t0 to the run started (for an edit: continued as new)
	firstTask  time.Duration // to its first activity scheduled (first workflow task)
	activity   time.Duration // that activity, scheduled to completed
	secondTask time.Duration // to the first model request scheduled
	total      time.Duration
	answer     time.Duration // the edit update answered (client side)
}

func newLatency(t0 time.Time, t resumeTimes) latency {
	l := latency{toRun: t.started.Sub(t0), firstTask: t.scheduled.Sub(t.started), total: t.work.Sub(t0)}
	// An edit's continued run has no activity before the model request
	// (its carried-run check is a local activity): those phases are 0.
	if !t.completed.IsZero() {
		l.activity, l.secondTask = t.completed.Sub(t.scheduled), t.work.Sub(t.completed)
	}
	return l
}

// editLatency edits step 3's call output of a run waiting for an approval,
// once the run is age old, and measures from sending the update to the
// first model request of the generation it continued as.
func editLatency(b *testing.B, age time.Duration) latency {
	b.Helper()
	started := time.Now()
	e := startEditRun(b, fmt.Sprintf("edit-steps=%d", editSteps))
	e.awaitApproval(b, 0)
	node := e.callNode(b, "step", 2)
	time.Sleep(max(time.Until(started.Add(age)), 200*time.Millisecond)) // the query tasks settled
	t0 := time.Now()
	res := e.edit(b, node, `{"edited": true}`)
	answer := time.Since(t0)
	if res.Generation != 1 || len(res.Invalidated) == 0 {
		b.Fatalf("%s: edit answered %+v", e.id, res)
	}
	l := newLatency(t0, readResumeTimes(b, e.id, continuedRun(b, e.id, e.first)))
	l.answer = answer
	e.terminate(b)
	return l
}

// freshLatency starts the same run and measures from the start request to
// its first model request.
func freshLatency(b *testing.B) latency {
	b.Helper()
	t0 := time.Now()
	f := startEditRun(b, fmt.Sprintf("edit-steps=%d", editSteps))
	l := newLatency(t0, readResumeTimes(b, f.id, f.first))
	f.terminate(b)
	return l
}

func median(ls []latency, field func(latency) time.Duration) float64 {
	return medianBy(ls, func(l latency) float64 { return field(l).Seconds() * 1000 })
}

func mean(ls []latency, field func(latency) time.Duration) float64 {
	var sum time.Duration
	for _, l := range ls {
		sum += field(l)
	}
	return sum.Seconds() * 1000 / float64(len(ls))
}

// BenchmarkEditResumeLatency: from sending the edit update (of step 3's
// call output, the run waiting for an approval after 5 steps) to the first
// model request of the generation it continues as, against a fresh start
// of the same run (from the start request to its first model request);
// medians of 10 interleaved rounds, and the medians of each phase. Goal:
// at most 1.2x.
//
// The edit is sent once the run is 1.5 s old, as a person's edit is: the
// Temporal server delays the first task of a run continued less than
// history.continueAsNewMinInterval (1 s) after its start, to stop
// continue-as-new loops. The quick figure is of an edit sent as soon as
// the run waits (about 0.5 s after its start), which pays that delay.
func BenchmarkEditResumeLatency(b *testing.B) {
	const editRounds = 10
	var edits, fresh, quick []latency
	for i := 0; i < b.N; i++ {
		for r := 0; r < editRounds; r++ {
			time.Sleep(200 * time.Millisecond)
			fresh = append(fresh, freshLatency(b))
			edits = append(edits, editLatency(b, 1500*time.Millisecond))
			quick = append(quick, editLatency(b, 0))
		}
	}
	total := func(l latency) time.Duration { return l.total }
	b.ReportMetric(median(edits, total), "edit-to-model-ms")
	b.ReportMetric(median(fresh, total), "start-to-model-ms")
	b.ReportMetric(median(edits, total)/median(fresh, total), "x-to-model")
	b.ReportMetric(mean(edits, total)/mean(fresh, total), "x-to-model-means")
	b.ReportMetric(median(quick, total), "quick-edit-to-model-ms")
	b.ReportMetric(median(edits, func(l latency) time.Duration { return l.answer }), "edit-answered-ms")
	for _, p := range []struct {
		name  string
		field func(latency) time.Duration
	}{
		{"1-to-run", func(l latency) time.Duration { return l.toRun }},
		{"2-first-task", func(l latency) time.Duration { return l.firstTask }},
		{"3-activity", func(l latency) time.Duration { return l.activity }},
		{"4-second-task", func(l latency) time.Duration { return l.secondTask }},
	} {
		b.ReportMetric(median(edits, p.field), "edit-"+p.name+"-ms")
		b.ReportMetric(median(fresh, p.field), "start-"+p.name+"-ms")
	}
}

// work is the model requests and tool calls (hits on the tool server)
// made between two snapshots.
type work struct{ requests, calls int }

func snapshot() work {
	w := work{requests: model.RequestCount()}
	for _, n := range tools.counts() {
		w.calls += n
	}
	return w
}

func (w work) since(before work) work {
	return work{requests: w.requests - before.requests, calls: w.calls - before.calls}
}

// BenchmarkEditWorkSaved: the model requests and tool calls the run makes
// to complete after an edit of step k's call output (k = 1, 3, 5 of 5
// steps, then hold, approved), against the run from scratch to completion.
// Only what followed step k runs again: 7-k requests and 6-k calls, against
// 7 and 6.
func BenchmarkEditWorkSaved(b *testing.B) {
	for i := 0; i < b.N; i++ {
		before := snapshot()
		s := startEditRun(b, fmt.Sprintf("edit-steps=%d", editSteps))
		s.approve(b, s.awaitApproval(b, 0))
		s.finish(b)
		scratch := snapshot().since(before)
		b.ReportMetric(float64(scratch.requests), "scratch-requests")
		b.ReportMetric(float64(scratch.calls), "scratch-calls")
		for _, k := range []int{1, 3, 5} {
			e := startEditRun(b, fmt.Sprintf("edit-steps=%d", editSteps))
			e.awaitApproval(b, 0)
			before := snapshot()
			e.edit(b, e.callNode(b, "step", k-1), `{"edited": true}`)
			e.approve(b, e.awaitApproval(b, 1))
			e.finish(b)
			resumed := snapshot().since(before)
			b.ReportMetric(float64(resumed.requests), fmt.Sprintf("k%d-requests", k))
			b.ReportMetric(float64(resumed.calls), fmt.Sprintf("k%d-calls", k))
		}
	}
}

// chainBytes is the history bytes of a workflow's last run and of all its
// runs (the chain continue-as-new made), and the number of runs.
func chainBytes(b *testing.B, id, first string) (last, total, runs int) {
	b.Helper()
	for runID := first; runID != ""; {
		size, next := 0, ""
		eachEvent(b, id, runID, func(ev *historypb.HistoryEvent) {
			size += proto.Size(ev)
			if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
				next = a.GetNewExecutionRunId()
			}
		})
		last, total, runs = size, total+size, runs+1
		runID = next
	}
	return last, total, runs
}

// BenchmarkEditHistory: history bytes after 10 successive edits of step 3's
// call output against after 1, each read when the run waits for the
// approval again: the last run's (what the worker replays) and the chain's
// (every run an edit continued as new).
func BenchmarkEditHistory(b *testing.B) {
	for i := 0; i < b.N; i++ {
		e := startEditRun(b, fmt.Sprintf("edit-steps=%d", editSteps))
		e.awaitApproval(b, 0)
		last0, _, _ := chainBytes(b, e.id, e.first)
		var last1, total1 int
		for k := 1; k <= 10; k++ {
			e.edit(b, e.callNode(b, "step", 2), fmt.Sprintf(`{"edited": %d}`, k))
			e.awaitApproval(b, k)
			if k == 1 {
				last1, total1, _ = chainBytes(b, e.id, e.first)
			}
		}
		last10, total10, runs := chainBytes(b, e.id, e.first)
		e.terminate(b)
		b.ReportMetric(float64(last0), "last-run-B@0")
		b.ReportMetric(float64(last1), "last-run-B@1")
		b.ReportMetric(float64(last10), "last-run-B@10")
		b.ReportMetric(float64(last10)/float64(last1), "x-last-run")
		b.ReportMetric(float64(total1), "chain-B@1")
		b.ReportMetric(float64(total10), "chain-B@10")
		b.ReportMetric(float64(total10)/float64(total1), "x-chain")
		b.ReportMetric(float64(runs), "runs@10")
	}
}

// BenchmarkEditDuplicateWrites: the look-up / write / confirm run, the
// look-up's output edited after the write ran; the resumed run re-issues
// the identical write, which the effect ledger answers. Reported: hits on
// each tool per run (goal: write 1, i.e. 0 duplicates), over 3 runs.
func BenchmarkEditDuplicateWrites(b *testing.B) {
	var lookups, writes, confirms, reused int
	for i := 0; i < b.N; i++ {
		for r := 0; r < rounds; r++ {
			before := tools.counts()
			e := startEditRun(b, "ledger")
			e.awaitApproval(b, 0)
			e.edit(b, e.callNode(b, "lookup", 0), `{"order": 7, "edited": true}`)
			e.approve(b, e.awaitApproval(b, 1))
			e.finish(b)
			after := tools.counts()
			lookups += after["lookup"] - before["lookup"]
			writes += after["write"] - before["write"]
			confirms += after["confirm"] - before["confirm"]
			var tr signals.Trace
			if err := query(e.id, signals.QueryTrace, &tr); err != nil {
				b.Fatal(err)
			}
			for _, n := range tr.Nodes {
				if n.Tool == "write" && n.ReusedFrom != "" {
					reused++
				}
			}
		}
	}
	n := float64(b.N * rounds)
	b.ReportMetric(float64(writes)/n, "write-hits/run")
	b.ReportMetric(float64(writes)/n-1, "duplicate-writes/run")
	b.ReportMetric(float64(reused)/n, "writes-reused/run")
	b.ReportMetric(float64(lookups)/n, "lookup-hits/run")
	b.ReportMetric(float64(confirms)/n, "confirm-hits/run")
}

// manyEdits is how many successive edits BenchmarkEditMany makes of one run.
const manyEdits = 200

// BenchmarkEditMany (issue 32): one run edited 200 times, each edit of
// step 3's call output sent when the run waits for the approval again (so
// each continues as new), then approved to completion. Reported: whether
// it completed, the generations, the largest carried input, the longest
// (continue-as-new) workflow task, failed workflow tasks, and the largest
// generation's history.
func BenchmarkEditMany(b *testing.B) {
	for range b.N {
		start := time.Now()
		e := startEditRun(b, fmt.Sprintf("edit-steps=%d", editSteps))
		callID := e.awaitApproval(b, 0)
		for k := 1; k <= manyEdits; k++ {
			e.edit(b, e.callNode(b, "step", 2), fmt.Sprintf(`{"edited": %d}`, k))
			callID = e.awaitApproval(b, k)
		}
		e.approve(b, callID)
		e.finish(b)
		f := chainFigures{completed: true, took: time.Since(start)}
		generationFigures(b, e.id, e.first, &f)
		b.Logf("%d edits of one run: completed %v in %.0f s, %d generations, largest carried input %d KiB, longest workflow task %d ms, longest continue-as-new task %d ms, %d failed workflow tasks, largest generation history %d KiB",
			manyEdits, f.completed, f.took.Seconds(), f.generations, f.maxInput>>10, f.maxTask.Milliseconds(), f.maxCANTask.Milliseconds(), f.failedTasks, f.maxHistory>>10)
	}
}
