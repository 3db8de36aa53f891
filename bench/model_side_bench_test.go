package bench

import (
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
	historypb "go.temporal.io/api/history/v1"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// contextBenchSteps and the window of BenchmarkContextWindow (issue 27);
// the runs and steps of BenchmarkContextWindowConcurrent.
const (
	contextBenchSteps     = 300
	contextBenchWindow    = 8000
	contextManyRuns       = 20
	contextManyRunsSteps  = 100
	contextUnboundedModel = 1 << 30
)

// contextSide is one side of a context-window benchmark: the model's
// window and the agent's policies (a YAML fragment after its tools).
type contextSide struct {
	name   string
	window int
	policy string
}

// BenchmarkContextWindow (issue 27): a run of 300 lookups of about 4 KB
// each against a scripted model with an 8k-token window (it refuses a
// longer prompt with OpenAI's context_length_exceeded), the agent with
// policies.context on a worker process of this tree, beside the same run
// against an unbounded window without the policy. Reported: whether it
// completed, model requests, the largest prompt and the tokens of all
// prompts, compactions and summaries.
func BenchmarkContextWindow(b *testing.B) {
	bin := buildWorker(b)
	lookup := lookupServer()
	defer lookup.Close()
	for range b.N {
		for _, side := range []contextSide{
			{"8k window, policies.context", contextBenchWindow, ", policies: { context: { keep_last: 3 }, max_steps: 400 }"},
			{"unbounded window, no policy", contextUnboundedModel, ", policies: { max_steps: 400 }"}} {
			f := contextRuns(b, bin, lookup.URL, side, 1, contextBenchSteps)
			b.Logf("%d steps of 4 KB results, %s: completed %v in %.0f s, %d model requests, largest prompt %d tokens, %d prompt tokens in all, %d compactions, %d summaries",
				contextBenchSteps, side.name, f.completed == 1, f.p50.Seconds(), f.requests, f.largest, f.total, f.compactions, f.summaries)
		}
	}
}

// BenchmarkContextWindowConcurrent: the runs of BenchmarkContextWindow
// the way users run them, many at once on one worker: 20 runs of 100
// lookups of about 4 KB at once on one fresh worker process, against the
// 8k window with policies.context {keep_last: 3}, beside the same 20 runs
// against an unbounded window without the policy; default policies
// otherwise. Reported: runs completed and failed, the wall time, model
// requests, the largest prompt of all runs and the tokens of all prompts,
// compactions, summaries, and workflow tasks that failed.
func BenchmarkContextWindowConcurrent(b *testing.B) {
	bin := buildWorker(b)
	lookup := lookupServer()
	defer lookup.Close()
	for range b.N {
		for _, side := range []contextSide{
			{"8k window, policies.context", contextBenchWindow, ", policies: { context: { keep_last: 3 } }"},
			{"unbounded window, no policy", contextUnboundedModel, ""}} {
			f := contextRuns(b, bin, lookup.URL, side, contextManyRuns, contextManyRunsSteps)
			b.Logf("%d runs at once of %d steps of 4 KB results, %s: %d completed, %d failed, wall %.0f s (a run: median %.0f s, longest %.0f s), %d model requests, largest prompt %d tokens, %d prompt tokens in all, %d compactions (%v a run), %d summaries (%v a run), %d failed workflow tasks, %d generations",
				contextManyRuns, contextManyRunsSteps, side.name, f.completed, f.failed, f.wall.Seconds(), f.p50.Seconds(), f.max.Seconds(),
				f.requests, f.largest, f.total, f.compactions, f.perRun.compactions, f.summaries, f.perRun.summaries, f.failedTasks, f.generations)
		}
	}
}

// lookupServer answers a lookup of i with about 4 KB of hex that differs
// from i to i.
func lookupServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var args struct{ I int }
		_ = json.Unmarshal(body, &args)
		fmt.Fprintf(w, `{"i": %d, "data": %q}`, args.I, kibOfHex(args.I)+kibOfHex(args.I+1)+kibOfHex(args.I+2)+kibOfHex(args.I+3))
	}))
}

// contextFigures: runsFigures, and over all runs the model requests, the
// largest prompt and the tokens of all prompts, compactions, summaries,
// failed workflow tasks and generations.
type contextFigures struct {
	runsFigures
	requests, largest, total int
	compactions, summaries   int
	failedTasks, generations int
	// perRun: the fewest and most compactions and summaries of a run.
	perRun struct{ compactions, summaries [2]int }
}

// contextRuns runs `runs` runs of `steps` lookups at once on a fresh
// worker process (bin) against a scripted model with side's window.
func contextRuns(b *testing.B, bin, lookupURL string, side contextSide, runs, steps int) contextFigures {
	b.Helper()
	s := startScripted(b, bin, "context", map[string]scriptedmodel.Script{"counter": counterScript(steps)}, func(modelURL string) string {
		return fmt.Sprintf(`
model: { base_url: %q, name: counter, context_window: %d, max_output_tokens: 1000 }
tools:
  - { name: lookup, http: { url: %q }, parameters: { type: object } }
agents:
  - { name: counter, instructions: Count., tools: [lookup]%s }
`, modelURL, contextBenchWindow, lookupURL, side.policy)
	}, scriptedmodel.WithContextWindow(side.window))
	defer s.close()
	outcomes, wall := runAll(s.queue, runs, workflows.AgentInput{Agent: "counter", Task: "count"}, 30*time.Minute)
	f := contextFigures{runsFigures: summarizeRuns(outcomes, wall)}
	prompts := s.model.PromptTokens()
	f.requests, f.largest = len(prompts), slices.Max(append(prompts, 0))
	for _, p := range prompts {
		f.total += p
	}
	traced := 0 // runs whose trace was read
	for _, o := range outcomes {
		if o.err != nil {
			b.Logf("%s: the run ended with %v", o.id, o.err)
		}
		if o.firstRunID == "" {
			continue
		}
		var chain chainFigures
		generationFigures(b, o.id, o.firstRunID, &chain)
		f.failedTasks += chain.failedTasks
		f.generations += chain.generations
		var tr signals.Trace
		if err := query(o.id, signals.QueryTrace, &tr); err != nil {
			b.Logf("%s: trace: %v", o.id, err)
			continue
		}
		compactions, summaries := 0, 0
		for _, n := range tr.Nodes {
			switch n.Kind {
			case signals.KindSummary:
				summaries++
			case signals.KindRequest:
				var rec struct{ Compactions []json.RawMessage }
				_ = json.Unmarshal(n.Output, &rec)
				compactions += len(rec.Compactions)
			}
		}
		f.compactions, f.summaries = f.compactions+compactions, f.summaries+summaries
		spread(&f.perRun.compactions, compactions, traced == 0)
		spread(&f.perRun.summaries, summaries, traced == 0)
		traced++
	}
	return f
}

// spread widens [least, most] to hold v; first, it starts them at v.
func spread(r *[2]int, v int, first bool) {
	if first {
		*r = [2]int{v, v}
	}
	r[0], r[1] = min(r[0], v), max(r[1], v)
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

// faultManyRuns is the runs of BenchmarkProviderFaultsConcurrent.
const faultManyRuns = 20

// BenchmarkProviderFaults (issue 27): a run of 20 steps whose model
// answers 429 (Retry-After: 2) for its first 10 s, then is down (503) for
// 60 s, with a fallback model, beside the same run with no fault.
// Reported: whether it completed, its time, the requests each model got,
// and the time lost to the fault.
func BenchmarkProviderFaults(b *testing.B) {
	bin := buildWorker(b)
	for range b.N {
		clean := faultRuns(b, bin, false, 1)
		faulty := faultRuns(b, bin, true, 1)
		b.Logf("no fault: completed %v in %.1f s, requests %v", clean.completed == 1, clean.p50.Seconds(), clean.byModel)
		b.Logf("429 for 10 s then down 60 s, with a fallback: completed %v in %.1f s, requests %v, %d fallbacks; %.1f s lost to the fault",
			faulty.completed == 1, faulty.p50.Seconds(), faulty.byModel, faulty.fallbacks, faulty.p50.Seconds()-clean.p50.Seconds())
	}
}

// BenchmarkProviderFaultsConcurrent: the fault of BenchmarkProviderFaults
// the way users meet it, many runs at once on one worker: 20 runs of 20
// steps at once on one fresh worker process, their model answering 429
// (Retry-After: 2) for 10 s from the first request, then 503 for 60 s,
// with a fallback model, beside 20 runs at once with no fault; default
// policies. The worker keeps one breaker per model endpoint, shared by
// its runs (5 unavailable attempts in a row open it for 30 s): with many
// runs it opens early and sends them all to the fallback. Reported per
// side: runs completed and failed, the median and longest run time,
// requests per model, fallbacks, requests the worker's breaker refused,
// failed workflow tasks; and the time lost (median faulted - median clean).
func BenchmarkProviderFaultsConcurrent(b *testing.B) {
	bin := buildWorker(b)
	for range b.N {
		clean := faultRuns(b, bin, false, faultManyRuns)
		faulty := faultRuns(b, bin, true, faultManyRuns)
		for _, side := range []struct {
			name string
			f    faultFigures
		}{{"no fault", clean}, {"429 for 10 s then down 60 s, with a fallback", faulty}} {
			f := side.f
			b.Logf("%d runs at once, %s: %d completed, %d failed, wall %.1f s, a run: median %.1f s, longest %.1f s; requests %v, %d fallbacks, %d requests refused by the worker's breaker, %d failed workflow tasks",
				faultManyRuns, side.name, f.completed, f.failed, f.wall.Seconds(), f.p50.Seconds(), f.max.Seconds(), f.byModel, f.fallbacks, f.refused, f.failedTasks)
		}
		b.Logf("%d runs at once: %.1f s lost to the fault (median faulted - median clean)", faultManyRuns, faulty.p50.Seconds()-clean.p50.Seconds())
	}
}

// faultFigures: runsFigures, the requests each model got, and over all
// runs the fallbacks, the model requests the worker's breaker refused
// and the workflow tasks that failed.
type faultFigures struct {
	runsFigures
	byModel                         map[string]int
	fallbacks, refused, failedTasks int
}

// faultRuns runs `runs` runs of 20 steps at once on a fresh worker
// process (bin); faulty, their primary model answers 429 (Retry-After: 2)
// for 10 s from its first request, then 503 for 60 s.
func faultRuns(b *testing.B, bin string, faulty bool, runs int) faultFigures {
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
	s := startScripted(b, bin, "faults", map[string]scriptedmodel.Script{"primary": primary, "backup": counterScript(20)}, func(modelURL string) string {
		return fmt.Sprintf(`
model: { base_url: %q, name: primary, fallbacks: [ { name: backup } ] }
tools:
  - { name: lookup, builtin: echo, parameters: { type: object } }
agents:
  - { name: counter, instructions: Count., tools: [lookup] }
`, modelURL)
	})
	defer s.close()
	outcomes, wall := runAll(s.queue, runs, workflows.AgentInput{Agent: "counter", Task: "count"}, 10*time.Minute)
	f := faultFigures{runsFigures: summarizeRuns(outcomes, wall), byModel: map[string]int{}}
	for _, req := range s.model.Requests() {
		f.byModel[req.Model]++
	}
	for _, o := range outcomes {
		if o.err != nil {
			b.Logf("%s: the run ended with %v", o.id, o.err)
		}
		if o.firstRunID == "" {
			continue
		}
		var st signals.Status
		if err := query(o.id, signals.QueryStatus, &st); err == nil {
			f.fallbacks += st.ModelFallbacks
		} else {
			b.Logf("%s: status: %v", o.id, err)
		}
		var chain chainFigures
		generationFigures(b, o.id, o.firstRunID, &chain)
		f.failedTasks += chain.failedTasks
		eachGeneration(b, o.id, o.firstRunID, func(_ int, ev *historypb.HistoryEvent) {
			if a := ev.GetActivityTaskFailedEventAttributes(); a != nil &&
				a.GetFailure().GetApplicationFailureInfo().GetType() == activities.ModelCircuitOpenError {
				f.refused++
			}
		})
	}
	return f
}
