package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// contextBenchSteps and the window of BenchmarkContextWindow (issue 27).
const (
	contextBenchSteps  = 300
	contextBenchWindow = 8000
)

// BenchmarkContextWindow (issue 27): a run of 300 lookups of about 4 KB
// each against a scripted model with an 8k-token window (it refuses a
// longer prompt with OpenAI's context_length_exceeded), the agent with
// policies.context on a worker process of this tree, beside the same run
// against an unbounded window without the policy. Reported: whether it
// completed, model requests, the largest prompt and the tokens of all
// prompts, compactions and summaries.
func BenchmarkContextWindow(b *testing.B) {
	bin := buildWorker(b)
	lookup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var args struct{ I int }
		_ = json.Unmarshal(body, &args)
		fmt.Fprintf(w, `{"i": %d, "data": %q}`, args.I, kibOfHex(args.I)+kibOfHex(args.I+1)+kibOfHex(args.I+2)+kibOfHex(args.I+3))
	}))
	defer lookup.Close()
	for range b.N {
		for _, side := range []struct {
			name   string
			window int
			policy string
		}{{"8k window, policies.context", contextBenchWindow, "policies: { context: { keep_last: 3 }, max_steps: 400 }"},
			{"unbounded window, no policy", 1 << 30, "policies: { max_steps: 400 }"}} {
			f := contextRun(b, bin, lookup.URL, side.window, side.policy)
			b.Logf("%d steps of 4 KB results, %s: completed %v in %.0f s, %d model requests, largest prompt %d tokens, %d prompt tokens in all, %d compactions, %d summaries",
				contextBenchSteps, side.name, f.completed, f.took.Seconds(), f.requests, f.largest, f.total, f.compactions, f.summaries)
		}
	}
}

type contextFigures struct {
	completed                bool
	took                     time.Duration
	requests, largest, total int
	compactions, summaries   int
}

func contextRun(b *testing.B, bin, lookupURL string, window int, policy string) contextFigures {
	b.Helper()
	m, err := scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{"counter": counterScript(contextBenchSteps)}, "",
		scriptedmodel.WithLogf(func(string, ...any) {}), scriptedmodel.WithContextWindow(window))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	cfg := fmt.Sprintf(`
model: { base_url: %q, name: counter, context_window: %d, max_output_tokens: 1000 }
tools:
  - { name: lookup, http: { url: %q }, parameters: { type: object } }
agents:
  - { name: counter, instructions: Count., tools: [lookup], %s }
`, m.URL(), contextBenchWindow, lookupURL, policy)
	queue, stop := freshWorker(b, bin, cfg, "context")
	defer stop()
	ctx := context.Background()
	start := time.Now()
	run, err := devClient.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue},
		workflows.WorkflowName, workflows.AgentInput{Agent: "counter", Task: "count"})
	if err != nil {
		b.Fatal(err)
	}
	f := contextFigures{}
	wait, cancel := context.WithTimeout(ctx, 20*time.Minute)
	err = run.Get(wait, nil)
	cancel()
	f.completed, f.took = err == nil, time.Since(start)
	if err != nil {
		b.Logf("the run ended with %v", err)
	}
	prompts := m.PromptTokens()
	f.requests, f.largest = len(prompts), slices.Max(append(prompts, 0))
	for _, p := range prompts {
		f.total += p
	}
	var tr signals.Trace
	if err := query(queue, signals.QueryTrace, &tr); err == nil {
		for _, n := range tr.Nodes {
			switch n.Kind {
			case signals.KindSummary:
				f.summaries++
			case signals.KindRequest:
				var rec struct{ Compactions []json.RawMessage }
				_ = json.Unmarshal(n.Output, &rec)
				f.compactions += len(rec.Compactions)
			}
		}
	}
	return f
}

// counterScript (a test double) looks up 0 .. steps-1, counting from its
// last result, then gives the output; a request without tools is
// unstuck's summary of the oldest turns.
func counterScript(steps int) scriptedmodel.Script {
	return func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		if len(req.Tools) == 0 {
			return scriptedmodel.Reply(fmt.Sprintf("Summary: %d messages of lookups, all answered.", len(req.Messages)))
		}
		if i := scriptedmodel.NextStep(req); i < steps {
			return scriptedmodel.CallTurn("lookup", map[string]any{"i": i})
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"turns": steps})
	}
}

// BenchmarkProviderFaults (issue 27): a run of 20 steps whose model
// answers 429 (Retry-After: 2) for its first 10 s, then is down (503) for
// 60 s, with a fallback model, beside the same run with no fault.
// Reported: whether it completed, its time, the requests each model got,
// and the time lost to the fault.
func BenchmarkProviderFaults(b *testing.B) {
	bin := buildWorker(b)
	for range b.N {
		clean := faultRun(b, bin, false)
		faulty := faultRun(b, bin, true)
		b.Logf("no fault: completed %v in %.1f s, requests %v", clean.completed, clean.took.Seconds(), clean.byModel)
		b.Logf("429 for 10 s then down 60 s, with a fallback: completed %v in %.1f s, requests %v, %d fallbacks; %.1f s lost to the fault",
			faulty.completed, faulty.took.Seconds(), faulty.byModel, faulty.fallbacks, faulty.took.Seconds()-clean.took.Seconds())
	}
}

type faultFigures struct {
	completed bool
	took      time.Duration
	byModel   map[string]int
	fallbacks int
}

func faultRun(b *testing.B, bin string, faulty bool) faultFigures {
	b.Helper()
	var once sync.Once
	var began time.Time
	primary := func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		once.Do(func() { began = time.Now() })
		if faulty {
			switch since := time.Since(began); {
			case since < 10*time.Second:
				return scriptedmodel.Turn{Status: 429, RetryAfter: 2 * time.Second}
			case since < 70*time.Second:
				return scriptedmodel.Turn{Status: 503}
			}
		}
		return counterScript(20)(req)
	}
	m, err := scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{"primary": primary, "backup": counterScript(20)}, "",
		scriptedmodel.WithLogf(func(string, ...any) {}))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	cfg := fmt.Sprintf(`
model: { base_url: %q, name: primary, fallbacks: [ { name: backup } ] }
tools:
  - { name: lookup, builtin: echo, parameters: { type: object } }
agents:
  - { name: counter, instructions: Count., tools: [lookup] }
`, m.URL())
	queue, stop := freshWorker(b, bin, cfg, "faults")
	defer stop()
	ctx := context.Background()
	start := time.Now()
	run, err := devClient.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue},
		workflows.WorkflowName, workflows.AgentInput{Agent: "counter", Task: "count"})
	if err != nil {
		b.Fatal(err)
	}
	wait, cancel := context.WithTimeout(ctx, 10*time.Minute)
	err = run.Get(wait, nil)
	cancel()
	f := faultFigures{completed: err == nil, took: time.Since(start), byModel: map[string]int{}}
	if err != nil {
		b.Logf("the run ended with %v", err)
	}
	for _, req := range m.Requests() {
		f.byModel[req.Model]++
	}
	var st signals.Status
	if query(queue, signals.QueryStatus, &st) == nil {
		f.fallbacks = st.ModelFallbacks
	}
	return f
}
