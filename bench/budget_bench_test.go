package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// budgetBenchRuns run side by side in each case of BenchmarkBudget;
// the overhead is measured over budgetOverheadRounds rounds of them.
const (
	budgetBenchRuns      = 20
	budgetOverheadRounds = 6
)

// BenchmarkBudget (issue 28), many runs at once on one fresh worker,
// default policies but a ladder without its human rung (a person would
// be asked to raise the budget; here the run stops):
//   - a stubborn model (a lookup, then another, never an answer) under a
//     cost budget of 0.05 USD: spend at stop against the budget, and how
//     far the worker's count of a prompt is from the provider's;
//   - a dead tool (503 on every call) under the same budget;
//   - the overhead of counting: the same 20-step runs with a budget that
//     never binds and without one, in alternating rounds.
func BenchmarkBudget(b *testing.B) {
	bin := buildWorker(b)
	lookup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, `{"found": %s}`, body)
	}))
	defer lookup.Close()
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error": "down for maintenance"}`, http.StatusServiceUnavailable)
	}))
	defer dead.Close()
	for range b.N {
		for _, c := range []struct{ name, url string }{{"stubborn model", lookup.URL}, {"dead tool", dead.URL}} {
			f := budgetStops(b, bin, c.url, budgetBenchRuns)
			b.Logf("%s, %d runs, cost budget 0.05 USD: %d stopped by the budget, %d otherwise (%v), %d completed; spend at stop p50 %.4f, max %.4f USD, over the budget by at most %.6f USD; %.1f requests and %.1f tool calls a run; worker's prompt count vs the provider's: %+.1f tokens a request (%+.6f USD); %.0f s",
				c.name, budgetBenchRuns, f.byBudget, f.otherwise, f.reasons, f.completed, f.p50, f.max, f.over, f.requests, f.calls, f.countError, f.countError*2.5/1e6, f.took.Seconds())
		}
		with, without := budgetOverhead(b, bin, lookup.URL)
		b.Logf("counting overhead, %d runs of 20 steps at once, %d alternating rounds each: run time p50 with a budget %.0f ms, without %.0f ms: %.3fx",
			budgetBenchRuns, budgetOverheadRounds, with, without, with/without)
	}
}

// budgetFigures are the runs of one case.
type budgetFigures struct {
	byBudget, otherwise, completed int
	reasons                        map[string]int
	p50, max, over                 float64
	requests, calls                float64
	countError                     float64 // tokens a request: provider's usage - worker's count
	took                           time.Duration
}

func budgetConfig(modelURL, toolURL, budget string) string {
	return fmt.Sprintf(`
model: { base_url: %q, name: stubborn, context_window: 128000, max_output_tokens: 1000 }
tools:
  - { name: lookup, http: { url: %q }, parameters: { type: object } }
agents:
  - name: stubborn
    instructions: Look things up.
    tools: [lookup]
    policies: { max_steps: 1000, escalation: [retry, substitute, explore, rollback, handoff, stop]%s }
prices:
  models: { stubborn: { input: 2.5, output: 10 } }
  tools: { lookup: 0.001 }
`, modelURL, toolURL, budget)
}

// budgetStops runs n stubborn runs at once under a cost budget of 0.05.
func budgetStops(b *testing.B, bin, toolURL string, n int) budgetFigures {
	m, err := scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{"stubborn": stubbornLookups(0)}, "",
		scriptedmodel.WithLogf(func(string, ...any) {}), scriptedmodel.WithContextWindow(1<<30))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	queue, stop := freshWorker(b, bin, budgetConfig(m.URL(), toolURL, ", budget: { cost: { limit: 0.05, currency: USD } }"), "budget")
	defer stop()
	start := time.Now()
	results := runAtOnce(b, queue, n, 30*time.Minute)
	f := budgetFigures{took: time.Since(start), reasons: map[string]int{}}
	var costs []float64
	var input int64
	for _, r := range results {
		switch {
		case r.err == nil:
			f.completed++
		case r.stopped && r.byBudget:
			f.byBudget++
		default:
			f.otherwise++
			f.reasons[shortReason(r)]++
		}
		if sp := r.spend; sp != nil {
			costs = append(costs, sp.Cost)
			f.over = max(f.over, sp.Cost-0.05)
			f.requests += float64(sp.ModelRequests) / float64(n)
			f.calls += float64(sp.ToolCalls) / float64(n)
			input += sp.InputTokens
		}
	}
	slices.Sort(costs)
	if len(costs) > 0 {
		f.p50, f.max = costs[len(costs)/2], costs[len(costs)-1]
	}
	counted := 0
	for _, p := range m.PromptTokens() {
		counted += p
	}
	if reqs := len(m.PromptTokens()); reqs > 0 {
		f.countError = float64(input-int64(counted)) / float64(reqs)
	}
	return f
}

func shortReason(r benchResult) string {
	if r.err == nil {
		return "completed"
	}
	s := r.err.Error()
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// budgetOverhead is the p50 run time of 20-step runs with a budget that
// never binds and without one, in rounds on one worker each, the side
// that goes first alternating.
func budgetOverhead(b *testing.B, bin, toolURL string) (with, without float64) {
	m, err := scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{"stubborn": stubbornLookups(20)}, "",
		scriptedmodel.WithLogf(func(string, ...any) {}))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	budget := ", budget: { cost: { limit: 1000, currency: USD }, tool_calls: 100000, model_requests: 100000, input_tokens: 1000000000, wall_time: 24h }"
	qWith, stopWith := freshWorker(b, bin, budgetConfig(m.URL(), toolURL, budget), "budget-on")
	defer stopWith()
	qWithout, stopWithout := freshWorker(b, bin, budgetConfig(m.URL(), toolURL, ""), "budget-off")
	defer stopWithout()
	var on, off []float64
	for round := range budgetOverheadRounds {
		sides := []struct {
			queue string
			into  *[]float64
		}{{qWith, &on}, {qWithout, &off}}
		if round%2 == 1 {
			sides[0], sides[1] = sides[1], sides[0] // neither side always goes first
		}
		for _, side := range sides {
			for _, r := range runAtOnce(b, side.queue, budgetBenchRuns, 10*time.Minute) {
				if r.err != nil {
					b.Fatalf("round %d: a run failed: %v", round, r.err)
				}
				*side.into = append(*side.into, float64(r.took.Milliseconds()))
			}
		}
	}
	slices.Sort(on)
	slices.Sort(off)
	return on[len(on)/2], off[len(off)/2]
}

// stubbornLookups (a test double) looks up 0, 1, 2, ... and answers
// after steps lookups (never, when steps is 0).
func stubbornLookups(steps int) scriptedmodel.Script {
	return func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		i := scriptedmodel.NextStep(req)
		if steps > 0 && i >= steps {
			return scriptedmodel.CallTurn("final_output", map[string]any{"looked_up": i})
		}
		return scriptedmodel.CallTurn("lookup", map[string]any{"i": i})
	}
}

// benchResult is one run of runAtOnce.
type benchResult struct {
	err               error
	stopped, byBudget bool
	spend             *signals.SpendStatus
	took              time.Duration
}

// runAtOnce starts n runs of agent stubborn on queue at once and waits
// for them all.
func runAtOnce(b *testing.B, queue string, n int, timeout time.Duration) []benchResult {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out := make([]benchResult, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			run, err := devClient.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-%d", queue, i), TaskQueue: queue},
				workflows.WorkflowName, workflows.AgentInput{Agent: "stubborn", Task: "look everything up"})
			if err != nil {
				out[i].err = err
				return
			}
			var res workflows.AgentResult
			err = run.Get(ctx, &res)
			out[i] = benchResult{err: err, spend: res.Spend, took: time.Since(start)}
			var app *temporal.ApplicationError
			if errors.As(err, &app) && app.Type() == signals.StoppedErrorType {
				var rep workflows.AgentResult
				_ = app.Details(&rep)
				out[i].stopped, out[i].spend = true, rep.Spend
				out[i].byBudget = strings.HasPrefix(rep.Reason, "budget:")
			}
		}()
	}
	wg.Wait()
	return out
}
