package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// The seed's own graph (seeds/000): A -> B -> C -> A, with the way out
// C -> D -> E listed after C -> A, so the walk never takes it by itself;
// the tool on B fails transiently 60% of the time. Only the explore rung
// leaves the cycle, and the loop it answers is seen at whichever node
// completes the third repetition: often A or B, while the exit is at C.

func seedGraphSpec(maxSteps int, ladder []string) *config.Resolved {
	edges := []config.GraphEdge{{From: "A", To: "B"}, {From: "B", To: "C"}, {From: "C", To: "A"}, {From: "C", To: "D"}, {From: "D", To: "E"}}
	return mustResolve(seedGraphFile(edges, nil, config.Policies{
		MaxSteps:   maxSteps,
		Loop:       config.LoopPolicy{Window: 24, Repeats: 3},
		Breaker:    config.BreakerPolicy{Failures: 50},
		Escalation: ladder,
	}), "seeker")
}

// seedGraphFile is the seed's graph with these edges and policies; the
// tools named in once are tried once per call (no Temporal retry), as
// flaky_b always is.
func seedGraphFile(edges []config.GraphEdge, once []string, pol config.Policies) *config.File {
	obj := map[string]any{"type": "object"}
	seed := map[string]any{"seed": "†input.seed"}
	tools := []config.Tool{
		{Name: "step_a", Builtin: "echo", Parameters: obj},
		{Name: "flaky_b", Builtin: "echo", Parameters: obj},
		{Name: "check_c", Builtin: "echo", Parameters: obj},
		{Name: "step_d", Builtin: "echo", Parameters: obj},
	}
	for i := range tools {
		if tools[i].Name == "flaky_b" || slices.Contains(once, tools[i].Name) {
			tools[i].Retry = &config.Retry{MaxAttempts: 1}
		}
	}
	return &config.File{
		Model: config.Model{BaseURL: "http://127.0.0.1:1/v1", Name: "unused"},
		Tools: tools,
		Agents: []config.Agent{{
			Name: "seeker", Instructions: "Walk the graph.", Tools: []string{"step_a", "flaky_b", "check_c", "step_d"},
			Graph: &config.Graph{
				Start: "A",
				Nodes: map[string]config.GraphNode{
					"A": {Tool: "step_a", Args: seed},
					"B": {Tool: "flaky_b", Args: seed, OutputPath: "†state.b"},
					"C": {Tool: "check_c", Args: seed},
					"D": {Tool: "step_d", Args: seed},
					"E": {End: true, Output: "†state.b || †input.fallback"},
				},
				Edges: edges,
			},
			Policies: pol,
		}},
	}
}

// seedBFails is the story of the seed's tool on B: its n-th call in a run
// fails 60% of the time, from a generator seeded by the run's seed and n,
// so each seed replays the same story (testsuite's flaky tool server
// draws the same way).
func seedBFails(seed, n int) bool {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d", seed, n)
	return rand.New(rand.NewPCG(h.Sum64(), 7)).Float64() < 0.6
}

// seedOutcome is how one seed's run ended.
type seedOutcome struct {
	reachedE    bool
	steps       int
	escalations []Escalation
	trace       signals.Trace
	reason      string
}

// runSeedGraph runs the seed graph for one seed in the test environment
// (activities mocked, time skipped).
// setup, if not nil, prepares the harness (a version to force, say).
func runSeedGraph(t testing.TB, spec *config.Resolved, seed int, setup func(*harness)) seedOutcome {
	var mu sync.Mutex
	bCalls := 0
	return runGraphSeed(t, spec, seed, setup, func(req activities.ToolRequest) (json.RawMessage, error) {
		if req.Tool.Name != "flaky_b" {
			return json.RawMessage(`{"ok":true}`), nil
		}
		mu.Lock()
		bCalls++
		n := bCalls
		mu.Unlock()
		if seedBFails(seed, n) {
			return nil, temporal.NewApplicationErrorWithOptions("tool flaky_b: HTTP 503: b is having a bad day", "transient", temporal.ApplicationErrorOptions{})
		}
		return json.RawMessage(fmt.Sprintf(`{"b":"done","call":%d}`, n)), nil
	})
}

// runGraphSeed runs the seeker agent of spec for one seed, its tools
// answered by tool, and says how the run ended: E, or AgentStopped with
// its report (anything else fails the test).
func runGraphSeed(t testing.TB, spec *config.Resolved, seed int, setup func(*harness), tool func(activities.ToolRequest) (json.RawMessage, error)) seedOutcome {
	h := newHarness(t, spec, nil, tool)
	if setup != nil {
		setup(h)
	}
	res, err := h.run(AgentInput{Agent: "seeker", Task: "reach E", Input: json.RawMessage(fmt.Sprintf(`{"seed":%d,"fallback":"escaped"}`, seed))})
	out := seedOutcome{trace: h.trace()}
	if err == nil {
		out.reachedE, out.steps, out.escalations = true, res.Steps, res.Escalations
		return out
	}
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app) && app.Type() == signals.StoppedErrorType, "seed %d: neither E nor AgentStopped: %v", seed, err)
	var rep AgentResult
	require.NoError(t, app.Details(&rep))
	out.steps, out.escalations, out.reason = rep.Steps, rep.Escalations, rep.Reason
	return out
}

// walked is the run's graph walk as text: visited nodes ("Bx" failed)
// and escalations ("[explore@B]": the rung and where the loop was seen).
func walked(tr signals.Trace) []string {
	var seq []string
	for _, n := range tr.Nodes {
		switch n.Kind {
		case signals.KindCall:
			s := n.GraphNode
			if n.Status == signals.StatusFailed {
				s += "x"
			}
			seq = append(seq, s)
		case signals.KindEscalation:
			var a struct{ Rung string }
			_ = json.Unmarshal(n.Args, &a)
			seq = append(seq, "["+a.Rung+"@"+n.GraphNode+"]")
		}
	}
	return seq
}

// Seed 3's loop is completed at B (its third repetition starts at C), and
// the only way out of the cycle is C -> D: explore takes it (version
// explore-cycle); before, explore looked only at B, had nothing to take,
// and the run stopped.
func TestExploreLeavesTheCycleWhereItsExitIs(t *testing.T) {
	const seed = 3
	spec := func() *config.Resolved { return seedGraphSpec(60, []string{"explore", "stop"}) }
	o := runSeedGraph(t, spec(), seed, nil)
	require.True(t, o.reachedE, "stopped: %s; walked %v", o.reason, walked(o.trace))
	require.Equal(t, []string{"explore"}, actions(o.escalations))
	esc := nodesByKind(o.trace, signals.KindEscalation)
	require.Len(t, esc, 1)
	require.Equal(t, "B", esc[0].GraphNode, "the loop was seen at B")
	require.JSONEq(t, `"leaving the cycle: C -> D (the loop was seen at B; the way out is at C)"`, string(esc[0].Output))
	w := walked(o.trace)
	require.Equal(t, []string{"[explore@B]", "D"}, w[len(w)-2:], "from the escalation straight to D")

	// Before explore-cycle: nothing leaves the cycle at B, explore is
	// skipped and the run stops at the same loop.
	before := runSeedGraph(t, spec(), seed, func(h *harness) {
		h.before(versionExploreCycle, versionExploreRegion)
	})
	require.False(t, before.reachedE)
	require.Equal(t, []string{"stop"}, actions(before.escalations))
	require.Equal(t, append(slices.Clone(w[:len(w)-2]), "[stop@B]"), walked(before.trace), "it stopped at the loop explore now leaves")
}

// Seed 1 loops at once (B fails three rounds running) and B succeeds now
// and then afterwards, the walk still going round A -> B -> C -> A. Those
// successes are not progress (version graph-progress): the next loop takes
// explore and the run reaches E. Before, each success sent the ladder back
// to retry, and the run spent its steps on retries until max_steps.
func TestSuccessInsideTheCycleIsNotProgress(t *testing.T) {
	const seed = 1
	spec := func() *config.Resolved { return seedGraphSpec(60, []string{"retry", "explore", "stop"}) }
	o := runSeedGraph(t, spec(), seed, nil)
	require.True(t, o.reachedE, "stopped: %s; walked %v", o.reason, walked(o.trace))
	require.Equal(t, []string{"retry", "explore"}, actions(o.escalations))
	w := walked(o.trace)
	require.Contains(t, w[:slices.Index(w, "[explore@B]")], "B", "B succeeded between the two loops")

	before := runSeedGraph(t, spec(), seed, func(h *harness) {
		h.before(versionGraphProgress, versionExploreRegion)
	})
	require.False(t, before.reachedE)
	require.Contains(t, before.reason, "max_steps (60)")
	require.Equal(t, []string{"retry", "retry", "retry"}, actions(before.escalations), "back to retry after every success of B")
}

// escalationsInTrace checks that every escalation of the result is an
// escalation node of the trace with the same rung, and that the trace
// has no other.
func escalationsInTrace(t testing.TB, seed int, o seedOutcome) {
	esc := nodesByKind(o.trace, signals.KindEscalation)
	require.Len(t, esc, len(o.escalations), "seed %d", seed)
	for i, e := range o.escalations {
		require.Equal(t, e.At, esc[i].ID, "seed %d: escalation %d", seed, i)
		var args struct{ Rung string }
		require.NoError(t, json.Unmarshal(esc[i].Args, &args))
		require.Equal(t, e.Action, args.Rung, "seed %d: escalation %d", seed, i)
		require.NotEmpty(t, esc[i].Output, "seed %d: escalation %d says what it did", seed, i)
	}
}

// The seed graph over 200 seeds at the seed's max_steps (100), ladder
// [retry, explore, stop]: at least 95% reach E (measured: 198), every
// run that does leaves the cycle by explore, and every escalation is in
// the trace. `make bench` measures the shares for other max_steps and
// ladders (BenchmarkSeedGraph).
func TestSeedGraphShareReachingE(t *testing.T) {
	const seeds = 200
	reached := 0
	for seed := range seeds {
		o := runSeedGraph(t, seedGraphSpec(100, []string{"retry", "explore", "stop"}), seed, nil)
		escalationsInTrace(t, seed, o)
		require.LessOrEqual(t, o.steps, 100, "seed %d", seed)
		if o.reachedE {
			reached++
			require.Equal(t, "explore", o.escalations[len(o.escalations)-1].Action, "seed %d: only explore leaves the cycle", seed)
		} else {
			require.Contains(t, o.reason, "max_steps", "seed %d: the ladder never reaches stop before explore", seed)
		}
	}
	t.Logf("%d of %d seeds reached E (%.1f%%)", reached, seeds, 100*float64(reached)/seeds)
	require.GreaterOrEqual(t, float64(reached)/seeds, 0.95)
}
