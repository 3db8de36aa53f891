package bench

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
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
	s := startScripted(b, bin, "budget", map[string]scriptedmodel.Script{"stubborn": stubbornLookups(0)}, func(modelURL string) string {
		return budgetConfig(modelURL, toolURL, ", budget: { cost: { limit: 0.05, currency: USD } }")
	}, scriptedmodel.WithContextWindow(1<<30))
	defer s.close()
	outcomes, wall := runAll(s.queue, n, stubbornTask, 30*time.Minute)
	f := budgetFigures{took: wall, reasons: map[string]int{}}
	var costs []float64
	var input int64
	for _, o := range outcomes {
		sp := o.result.Spend
		report, stopped := stopReport(o.err)
		if stopped {
			sp = report.Spend
		}
		switch {
		case o.err == nil:
			f.completed++
		case stopped && strings.HasPrefix(report.Reason, "budget:"):
			f.byBudget++
		default:
			f.otherwise++
			f.reasons[shortReason(o.err)]++
		}
		if sp != nil {
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
	for _, p := range s.model.PromptTokens() {
		counted += p
	}
	if reqs := len(s.model.PromptTokens()); reqs > 0 {
		f.countError = float64(input-int64(counted)) / float64(reqs)
	}
	return f
}

// shortReason is how a run ended otherwise than the case expects, short
// enough to count alike ends together.
func shortReason(err error) string {
	if err == nil {
		return "completed"
	}
	s := err.Error()
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// budgetOverhead is the p50 run time of 20-step runs with a budget that
// never binds and without one, in rounds on one worker each, the side
// that goes first alternating.
func budgetOverhead(b *testing.B, bin, toolURL string) (with, without float64) {
	budget := ", budget: { cost: { limit: 1000, currency: USD }, tool_calls: 100000, model_requests: 100000, input_tokens: 1000000000, wall_time: 24h }"
	s := startScripted(b, bin, "budget-on", map[string]scriptedmodel.Script{"stubborn": stubbornLookups(20)}, func(modelURL string) string {
		return budgetConfig(modelURL, toolURL, budget)
	})
	defer s.close()
	qWith := s.queue
	// The side without a budget asks the same model, on a worker of its own.
	qWithout, stopWithout := freshWorker(b, bin, budgetConfig(s.model.URL(), toolURL, ""), "budget-off")
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
			outcomes, _ := runAll(side.queue, budgetBenchRuns, stubbornTask, 10*time.Minute)
			for _, o := range outcomes {
				if o.err != nil {
					b.Fatalf("round %d: a run failed: %v", round, o.err)
				}
				*side.into = append(*side.into, float64(o.took.Milliseconds()))
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

// stubbornTask is the input of every run of BenchmarkBudget.
var stubbornTask = workflows.AgentInput{Agent: "stubborn", Task: "look everything up"}

// stopReport is the report of a run that stopped (AgentStopped, its
// result in the error's details), and whether it stopped.
func stopReport(err error) (workflows.AgentResult, bool) {
	var app *temporal.ApplicationError
	var report workflows.AgentResult
	if !errors.As(err, &app) || app.Type() != signals.StoppedErrorType {
		return report, false
	}
	_ = app.Details(&report)
	return report, true
}
