package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Handoffs (issue 12): agent hsrc works a few steps, then hands the run
// to hdst with the model's handoff tool; the run continues as new as
// hdst, whose first model request carries the handoff context. The two
// agents talk to scripted models of their own (test doubles), which note
// when each request arrives, so the handoff is timed the way a step is:
// from one model request to the next.

const (
	handoffSourceModel = "bench-handoff-src"
	handoffTargetModel = "bench-handoff-dst"
)

// handoffTools is the HTTP tool of the context benchmark: bytes answers
// {"data": <n bytes>} (writeBytesResult).
func handoffTools(url string) string {
	return fmt.Sprintf("  - { name: bytes, http: { method: POST, url: %q }, parameters: { type: object, properties: { n: { type: integer }, i: { type: integer } } } }\n", url+"/bytes")
}

// handoffAgents: hsrc may hand over to hdst only; both are in every
// handoff's registry with the benchmarks' other agents (bench, editbench,
// streamed, whole), so ReadRegistry counts the load of six agents, as a
// small deployment's registry would.
const handoffAgents = `  - { name: hsrc, description: Takes the task first., capabilities: [intake], instructions: Benchmark., model: { name: ` + handoffSourceModel + ` }, tools: [noop, bytes], handoffs: [hdst], policies: { max_steps: 2000 } }
  - { name: hdst, description: Finishes what is handed over., capabilities: [finishing], instructions: Benchmark., model: { name: ` + handoffTargetModel + ` }, tools: [noop], policies: { max_steps: 2000 } }`

// writeBytesResult answers a bytes call ({"n": N, "i": I}) with
// {"data": <N bytes of hex>}: hex (not one repeated byte) so that the
// continue-as-new of a large run compresses it as it would real data.
func writeBytesResult(w http.ResponseWriter, args []byte) {
	var a struct{ N, I int }
	_ = json.Unmarshal(args, &a)
	fmt.Fprintf(w, `{"data": %q}`, hexData(a.N, a.I))
}

func hexData(n, seed int) string {
	var b strings.Builder
	sum := sha256.Sum256([]byte(fmt.Sprint(seed)))
	for b.Len() < n {
		b.WriteString(hex.EncodeToString(sum[:]))
		sum = sha256.Sum256(sum[:])
	}
	return b.String()[:n]
}

// handoffClock is what the scripted models saw of one run (by its task).
type handoffClock struct {
	src       []time.Time // arrivals of hsrc's model requests
	convBytes int         // hsrc's last request (the one answered with the handoff): its messages as JSON
	dst       time.Time   // arrival of hdst's first model request
	dstBytes  int         // its messages as JSON
}

var (
	clocksMu sync.Mutex
	clocks   = map[string]*handoffClock{}
)

func clockOf(task string) *handoffClock {
	c, ok := clocks[task]
	if !ok {
		c = &handoffClock{}
		clocks[task] = c
	}
	return c
}

func readClock(task string) handoffClock {
	clocksMu.Lock()
	defer clocksMu.Unlock()
	c := *clockOf(task)
	c.src = slices.Clone(c.src)
	return c
}

// The latency runs take at least latencyMinSteps ordinary steps and hand
// over once their first request is latencyMinAge old: the Temporal server
// holds back the first task of a run continued less than
// history.continueAsNewMinInterval (1 s) after its start (see
// BenchmarkEditResumeLatency), which the quick runs show.
const (
	latencyMinSteps = 3
	latencyMinAge   = 1500 * time.Millisecond
)

// contextCase is a conversation of replies model replies, each of calls
// bytes calls answering size bytes.
type contextCase struct {
	name                  string
	replies, calls, bytes int
}

var contextCases = []contextCase{
	{"10KiB", 4, 1, 2560},
	{"200KiB", 4, 1, 50 << 10},
	{"1MiB", 16, 1, 64 << 10},
	// Results of under 4 KiB are kept whole in the context's tool records
	// too (larger ones are a note there): 256 of them are 1 MiB twice
	// over, which the whole-context bound cuts.
	{"1MiB-4KiB-results", 4, 64, 4000},
}

// handoffSource is hsrc's scripted model. "handoff-latency N": noop steps
// (latencyMinSteps, latencyMinAge), then the handoff; "handoff-quick N":
// the handoff at once; "handoff-context CASE N": the case's bytes calls,
// then the handoff. Unlike the scripts of tests, the latency runs' script
// goes by the clock, not the conversation alone (scriptedmodel.Script asks
// for pure scripts so that a retried request gets the same answer): a
// retried request may hand over a step sooner, which changes no figure.
func handoffSource(req openai.ChatCompletionRequest) scriptedmodel.Turn {
	now := time.Now()
	task := scriptedmodel.Task(req)
	turn := scriptedmodel.AssistantTurns(req)
	clocksMu.Lock()
	defer clocksMu.Unlock()
	c := clockOf(task)
	c.src = append(c.src, now)
	fields := strings.Fields(task)
	switch {
	case strings.HasPrefix(task, "handoff-latency "):
		if turn < latencyMinSteps || now.Sub(c.src[0]) < latencyMinAge {
			return scriptedmodel.CallTurn("noop", map[string]any{"i": turn})
		}
	case strings.HasPrefix(task, "handoff-context ") && len(fields) > 1:
		i := slices.IndexFunc(contextCases, func(cc contextCase) bool { return cc.name == fields[1] })
		if i >= 0 && turn < contextCases[i].replies {
			cc := contextCases[i]
			calls := make([]scriptedmodel.Call, cc.calls)
			for k := range calls {
				calls[k] = scriptedmodel.NewCall("bytes", map[string]any{"n": cc.bytes, "i": turn*cc.calls + k})
			}
			return scriptedmodel.CallsTurn(calls...)
		}
	}
	c.convBytes = len(mustMarshal(req.Messages))
	return scriptedmodel.CallTurn("handoff", map[string]any{
		"to": "hdst", "reason": "complexity_exceeded",
		"summary": "The intake is done; what is left needs hdst.", "suggested_next_action": "finish the task",
	})
}

// handoffTarget is hdst's scripted model: it notes its first request and
// finishes.
func handoffTarget(req openai.ChatCompletionRequest) scriptedmodel.Turn {
	now := time.Now()
	clocksMu.Lock()
	defer clocksMu.Unlock()
	c := clockOf(scriptedmodel.Task(req))
	if c.dst.IsZero() {
		c.dst, c.dstBytes = now, len(mustMarshal(req.Messages))
	}
	return scriptedmodel.CallTurn("final_output", map[string]any{"done": true})
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// handoffRun runs hsrc on task to its end (hdst's final answer) and
// answers the workflow id and its first run.
func handoffRun(b *testing.B, task string) (id, first string) {
	b.Helper()
	runSeq++
	id = fmt.Sprintf("bench-handoff-%d-%d", time.Now().UnixNano(), runSeq)
	run, err := devClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue},
		workflows.WorkflowName, workflows.AgentInput{Agent: "hsrc", Task: task})
	if err != nil {
		b.Fatal(err)
	}
	first = run.GetRunID()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var res workflows.AgentResult
	if err := run.Get(ctx, &res); err != nil {
		b.Fatalf("%s: %v", id, err)
	}
	if !slices.Equal(res.HandoffPath, []string{"hsrc", "hdst"}) {
		b.Fatalf("%s: handoff path %v, want hsrc -> hdst", id, res.HandoffPath)
	}
	return id, first
}

// handoffLatency is one handoff, timed: from hsrc's request answered with
// the handoff to hdst's first request, in phases read from the two runs'
// histories (server times; the model's clock is the same machine's).
type handoffLatency struct {
	total     time.Duration
	steps     []time.Duration // hsrc's ordinary steps: request to next request
	toRead    time.Duration   // the reply to ReadRegistry scheduled (the step's workflow task, the handoff node)
	registry  time.Duration   // ReadRegistry: the agents' load, counted by visibility
	resolve   time.Duration   // to ResolveAgent completed (a workflow task, the activity)
	continued time.Duration   // to hdst's model request scheduled (continue-as-new, the new run's first task)
	toModel   time.Duration   // to the request arriving at the model server
}

func measureHandoff(b *testing.B, task string) handoffLatency {
	b.Helper()
	id, first := handoffRun(b, task)
	c := readClock(task)
	if len(c.src) == 0 || c.dst.IsZero() {
		b.Fatalf("%s: the models saw %d hsrc requests and hdst's at %v", id, len(c.src), c.dst)
	}
	reply := c.src[len(c.src)-1]
	l := handoffLatency{total: c.dst.Sub(reply)}
	for i := 1; i < len(c.src); i++ {
		l.steps = append(l.steps, c.src[i].Sub(c.src[i-1]))
	}
	var readSched, readDone, resolveDone, modelSched time.Time
	activity := map[int64]string{}
	eachEvent(b, id, first, func(ev *historypb.HistoryEvent) {
		at := ev.GetEventTime().AsTime()
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			name := ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
			activity[ev.GetEventId()] = name
			if name == "ReadRegistry" {
				readSched = at
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			switch activity[ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()] {
			case "ReadRegistry":
				readDone = at
			case "ResolveAgent":
				resolveDone = at
			}
		}
	})
	eachEvent(b, id, continuedRun(b, id, first), func(ev *historypb.HistoryEvent) {
		a := ev.GetActivityTaskScheduledEventAttributes()
		if a != nil && a.GetActivityType().GetName() == "CallModel" && modelSched.IsZero() {
			modelSched = ev.GetEventTime().AsTime()
		}
	})
	if readSched.IsZero() || readDone.IsZero() || resolveDone.IsZero() || modelSched.IsZero() {
		b.Fatalf("%s: phases not found in the histories (registry %v-%v, resolve %v, model %v)", id, readSched, readDone, resolveDone, modelSched)
	}
	l.toRead, l.registry = readSched.Sub(reply), readDone.Sub(readSched)
	l.resolve, l.continued, l.toModel = resolveDone.Sub(readDone), modelSched.Sub(resolveDone), c.dst.Sub(modelSched)
	return l
}

// quantile is the q quantile (nearest rank) of ds, in ms.
func quantile(ds []time.Duration, q float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*q+0.999999) - 1
	return s[max(0, min(i, len(s)-1))].Seconds() * 1000
}

// BenchmarkHandoffLatency: from hsrc's model request answered with the
// handoff call to hdst's first model request arriving at the model server,
// against one ordinary step of the same runs (a model request answered
// with a noop call to the next request); median and p90 over 20 runs, the
// handoff's phases (medians), and quick handoffs (at the run's first
// reply, less than 1 s after its start).
func BenchmarkHandoffLatency(b *testing.B) {
	const runs, quickRuns = 20, 5
	var all []handoffLatency
	var steps, quick []time.Duration
	for i := 0; i < b.N; i++ {
		for r := 0; r < runs; r++ {
			l := measureHandoff(b, fmt.Sprintf("handoff-latency %d-%d", i, r))
			all = append(all, l)
			steps = append(steps, l.steps...)
		}
		for r := 0; r < quickRuns; r++ {
			quick = append(quick, measureHandoff(b, fmt.Sprintf("handoff-quick %d-%d", i, r)).total)
		}
	}
	field := func(f func(handoffLatency) time.Duration) []time.Duration {
		out := make([]time.Duration, len(all))
		for i, l := range all {
			out[i] = f(l)
		}
		return out
	}
	total := field(func(l handoffLatency) time.Duration { return l.total })
	b.ReportMetric(quantile(total, 0.5), "handoff-to-model-ms")
	b.ReportMetric(quantile(total, 0.9), "handoff-to-model-p90-ms")
	b.ReportMetric(quantile(steps, 0.5), "step-ms")
	b.ReportMetric(quantile(steps, 0.9), "step-p90-ms")
	b.ReportMetric(quantile(total, 0.5)/quantile(steps, 0.5), "x-step")
	b.ReportMetric(quantile(total, 0.9)/quantile(steps, 0.9), "x-step-p90")
	b.ReportMetric(float64(len(steps)), "steps-measured")
	b.ReportMetric(quantile(quick, 0.5), "quick-handoff-to-model-ms")
	for _, p := range []struct {
		name string
		f    func(handoffLatency) time.Duration
	}{
		{"1-to-registry", func(l handoffLatency) time.Duration { return l.toRead }},
		{"2-registry", func(l handoffLatency) time.Duration { return l.registry }},
		{"3-resolve", func(l handoffLatency) time.Duration { return l.resolve }},
		{"4-continue", func(l handoffLatency) time.Duration { return l.continued }},
		{"5-to-model", func(l handoffLatency) time.Duration { return l.toModel }},
	} {
		b.ReportMetric(quantile(field(p.f), 0.5), "phase"+p.name+"-ms")
	}
}

// handoffNode is the run's completed handoff node, its trace read page by
// page (a handoff context may be 512 KiB).
func handoffNode(b *testing.B, id string) signals.Node {
	b.Helper()
	var tr signals.Trace
	if err := query(id, signals.QueryTrace, &tr); err != nil {
		b.Fatal(err)
	}
	nodes := tr.Nodes
	for pages := 0; tr.Next != "" && pages < 100; pages++ {
		since := tr.Next
		tr = signals.Trace{}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		v, err := devClient.QueryWorkflow(ctx, id, "", signals.QueryTrace, signals.TracePage{Since: since, Limit: signals.MaxTracePageLimit})
		if err == nil {
			err = v.Get(&tr)
		}
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		nodes = append(nodes, tr.Nodes...)
	}
	for _, n := range nodes {
		if n.Kind == signals.KindHandoff && n.Status == signals.StatusCompleted {
			return n
		}
	}
	b.Fatalf("%s: no completed handoff node", id)
	return signals.Node{}
}

// BenchmarkHandoffContext: the handoff context's bytes (the handoff node's
// output, what hdst's first request carries) against the conversation's
// bytes at the handoff (the messages of hsrc's last request, as JSON), for
// conversations of about 10 KiB, 200 KiB and 1 MiB of tool results: the
// conversation in the context is bounded to 256 KiB, the whole context to
// 512 KiB (the oldest tool records go first).
func BenchmarkHandoffContext(b *testing.B) {
	const kib = 1024.0
	for i := 0; i < b.N; i++ {
		for _, cc := range contextCases {
			task := fmt.Sprintf("handoff-context %s %d", cc.name, i)
			id, _ := handoffRun(b, task)
			c := readClock(task)
			n := handoffNode(b, id)
			var hc struct {
				Conversation json.RawMessage `json:"conversation"`
				ToolRecords  []any           `json:"tool_records"`
				Metadata     map[string]any  `json:"metadata"`
			}
			if err := json.Unmarshal(n.Output, &hc); err != nil {
				b.Fatalf("%s: handoff context: %v", id, err)
			}
			dropped, _ := hc.Metadata["tool_records_dropped"].(float64)
			b.ReportMetric(float64(c.convBytes)/kib, cc.name+"-conversation-KiB")
			b.ReportMetric(float64(len(n.Output))/kib, cc.name+"-context-KiB")
			b.ReportMetric(float64(len(n.Output))/float64(c.convBytes), cc.name+"-x-context")
			b.ReportMetric(float64(len(hc.Conversation))/kib, cc.name+"-context-conversation-KiB")
			b.ReportMetric(float64(len(mustMarshal(hc.ToolRecords)))/kib, cc.name+"-context-records-KiB")
			b.ReportMetric(float64(len(hc.ToolRecords)), cc.name+"-records-kept")
			b.ReportMetric(dropped, cc.name+"-records-dropped")
			b.ReportMetric(float64(c.dstBytes)/kib, cc.name+"-target-request-KiB")
		}
	}
}
