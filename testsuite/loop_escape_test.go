package testsuite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// seedGraph is the seed scenario of loop escape: A -> B -> C -> A, with
// C -> D -> E (the goal) once B has succeeded. B fails 60% of the time.
const seedGraph = `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: step_a, http: { url: "{{TOOLS}}/a" }, parameters: { type: object } }
  - { name: flaky_b, http: { url: "{{TOOLS}}/b" }, retry: { max_attempts: 1 }, parameters: { type: object } }
  - { name: check_c, http: { url: "{{TOOLS}}/c" }, parameters: { type: object } }
  - { name: step_d, http: { url: "{{TOOLS}}/d" }, parameters: { type: object } }
agents:
  - name: seeker
    instructions: Walk the graph.
    tools: [step_a, flaky_b, check_c, step_d]
    graph:
      start: A
      nodes:
        A: { tool: step_a, args: { seed: "†input.seed" } }
        B: { tool: flaky_b, args: { seed: "†input.seed" }, output_path: "†state.b" }
        C: { tool: check_c, args: { seed: "†input.seed" } }
        D: { tool: step_d, args: { seed: "†input.seed" } }
        E: { end: true, output: "†state.b || †input.fallback" }
      edges:
        - { from: A, to: B }
        - { from: B, to: C }
        - { from: C, to: D, when: "state.b != nil" }
        - { from: C, to: A }
        - { from: D, to: E }
    policies:
      max_steps: 60
      loop: { window: 24, repeats: 3 }
      breaker: { failures: 50, cooldown: 1s }
      escalation: [retry, explore, stop]
`

// flakyTools answers B with an error 60% of the time, from a generator
// seeded by the run's seed and the call's position, so each seed replays
// the same story.
type flakyTools struct {
	mu     sync.Mutex
	calls  map[string]int // workflow id -> calls of B
	status int
}

func (f *flakyTools) handle(w http.ResponseWriter, r *http.Request, _ int) {
	if r.URL.Path != "/b" {
		writeJSON(w, 200, map[string]bool{"ok": true})
		return
	}
	var args struct {
		Seed json.Number `json:"seed"`
	}
	_ = json.NewDecoder(r.Body).Decode(&args)
	wf := r.Header.Get("Unstuck-Workflow-Id")
	f.mu.Lock()
	f.calls[wf]++
	n := f.calls[wf]
	f.mu.Unlock()
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", args.Seed, n)
	rng := rand.New(rand.NewPCG(h.Sum64(), 7))
	if rng.Float64() < 0.6 {
		writeJSON(w, f.status, map[string]string{"error": "b is having a bad day"})
		return
	}
	writeJSON(w, 200, map[string]any{"b": "done", "call": n})
}

func runSeedScenario(t *testing.T, status, seeds int) {
	flaky := &flakyTools{calls: map[string]int{}, status: status}
	tools := newToolServer(t, flaky.handle)
	s := newStack(t, strings.ReplaceAll(seedGraph, "{{TOOLS}}", tools.URL), nil)

	type outcome struct {
		reachedE bool
		explored bool // reached E by leaving the cycle, B never having succeeded
		stopped  bool
		steps    int
		loops    int
	}
	results := make([]outcome, seeds)
	runs := make([]client.WorkflowRun, seeds)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for seed := 0; seed < seeds; seed++ {
		wg.Add(1)
		go func(seed int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			run, err := s.client.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
				ID: fmt.Sprintf("seed-%d-%d-%d", status, seed, time.Now().UnixNano()), TaskQueue: s.queue,
				WorkflowExecutionTimeout: 3 * time.Minute,
			}, workflows.WorkflowName, workflows.AgentInput{Agent: "seeker", Task: "reach E",
				Input: json.RawMessage(fmt.Sprintf(`{"seed": %d, "fallback": "escaped"}`, seed))})
			if err != nil {
				t.Errorf("seed %d: start: %v", seed, err)
				return
			}
			runs[seed] = run
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			var res workflows.AgentResult
			err = run.Get(ctx, &res)
			var app *temporal.ApplicationError
			switch {
			case err == nil:
				results[seed] = outcome{reachedE: true, explored: string(res.Output) == `"escaped"`, steps: res.Steps, loops: len(res.Escalations)}
			case errors.As(err, &app) && app.Type() == signals.StoppedErrorType:
				var rep workflows.AgentResult
				_ = app.Details(&rep)
				results[seed] = outcome{stopped: true, steps: rep.Steps, loops: len(rep.Escalations)}
			default:
				t.Errorf("seed %d: neither E nor AgentStopped: %v", seed, err)
			}
		}(seed)
	}
	wg.Wait()

	reached, stopped, escalated, explored := 0, 0, 0, 0
	for seed, o := range results {
		require.True(t, o.reachedE || o.stopped, "seed %d did not end", seed)
		require.LessOrEqual(t, o.steps, 60, "seed %d exceeded max_steps", seed)
		if o.reachedE {
			reached++
		} else {
			stopped++
		}
		if o.loops > 0 {
			escalated++
		}
		if o.explored {
			explored++
		}
	}
	t.Logf("HTTP %d on B 60%% of the time, %d seeds: %d reached E (%.1f%%; %d of them by exploring off the cycle), %d stopped (AgentStopped), %d climbed the ladder",
		status, seeds, reached, 100*float64(reached)/float64(seeds), explored, stopped, escalated)
	require.Greater(t, escalated, 0, "some seeds must loop and escalate")
	for seed, o := range results {
		if o.explored {
			recordAndReplay(t, runs[seed], fmt.Sprintf("seed_graph_%d_explored", status))
			break
		}
	}
}

// The seed scenario over 200 seeds: every run ends (E or AgentStopped)
// within max_steps and none hangs, with a transient error on B.
func TestSeedGraphLoopEscapeTransient(t *testing.T) { runSeedScenario(t, 503, 200) }

// The same with a persistent error on B.
func TestSeedGraphLoopEscapePersistent(t *testing.T) { runSeedScenario(t, 404, 200) }

// A stubborn model repeating one failing call: the loop is detected
// exactly at the repeats-th repetition, the call is blocked, and the tool
// never sees that call again; the run then stops with a report.
func TestStubbornModelIsBlockedThenStopped(t *testing.T) {
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 409, map[string]string{"error": "seat already taken"})
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: stubborn }
tools:
  - { name: book, http: { url: "` + tools.URL + `/book" }, parameters: { type: object } }
agents:
  - name: stubborn
    instructions: Book.
    tools: [book]
    policies: { max_steps: 30, loop: { window: 16, repeats: 3 }, escalation: [explore, stop] }
`
	stubborn := func(openaiRequest) scriptedmodel.Turn {
		return scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"})
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"stubborn": stubborn})
	run := s.start(workflows.AgentInput{Agent: "stubborn", Task: "book 12A"})
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Contains(t, rep.Reason, "loop")
	require.Len(t, tools.requests("/book"), 3, "no identical call reaches the tool after the block")
	require.Equal(t, []string{"explore", "stop"}, []string{rep.Escalations[0].Action, rep.Escalations[1].Action})

	tr := s.trace(run)
	calls := nodesOf(tr, signals.KindCall)
	esc := nodesOf(tr, signals.KindEscalation)
	require.Len(t, esc, 2)
	// The first escalation follows the third call: detected at the exact
	// event completing the third repetition.
	require.Equal(t, calls[2].ID, previousNode(tr, esc[0].ID).ID)
	for _, c := range calls[3:] {
		require.Contains(t, c.Error, "blocked")
	}
	st := s.status(run)
	require.Len(t, st.Loops, 2)
	require.Contains(t, st.Breakers, "book")
	recordAndReplay(t, run, "stubborn_model_blocked")
}

func previousNode(tr signals.Trace, id string) signals.Node {
	for i, n := range tr.Nodes {
		if n.ID == id && i > 0 {
			return tr.Nodes[i-1]
		}
	}
	return signals.Node{}
}
