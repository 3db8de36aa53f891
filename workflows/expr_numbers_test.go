package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// numbersSpec has rooms, checked by an expression over numbers, and hold,
// checked by a read-back whose expect compares numbers of args and
// result.
func numbersSpec(verify string) *config.Resolved {
	obj := map[string]any{"type": "object"}
	f := &config.File{
		Model: config.Model{BaseURL: "http://127.0.0.1:1/v1", Name: "scripted:test"},
		Tools: []config.Tool{
			{Name: "rooms", Builtin: "echo", Parameters: obj, Verify: &config.Verify{Expr: verify}},
			{Name: "hold", Builtin: "echo", Parameters: obj, Effect: config.EffectWrite,
				Verify: &config.Verify{Tool: "get_hold", Args: map[string]any{"id": "†result.id"}, Expect: "result.nights == args.nights && result.price > 99.5"}},
			{Name: "get_hold", Builtin: "echo", Parameters: obj},
		},
		Agents: []config.Agent{{Name: "agent", Instructions: "x", Tools: []string{"rooms", "hold"}}},
	}
	return mustResolve(f, "agent")
}

// askedExprNumbers counts the run's asks of versionExprNumbers, answering
// v.
func askedExprNumbers(h *harness, v workflow.Version) *int {
	asked := 0
	h.env.OnGetVersion(versionExprNumbers, workflow.DefaultVersion, 1).Run(func(mock.Arguments) { asked++ }).Return(v).Maybe()
	return &asked
}

// A check's condition compares numbers as numbers: result.free > 0 on
// {"free": 3} holds, and a read-back's expect compares the call's args
// with the read-back's result.
func TestAVerifyComparesNumbers(t *testing.T) {
	h := newHarness(t, numbersSpec("result.free > 0 && result.free == args.want"), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "rooms", `{"want": 3}`), call("k2", "hold", `{"nights": 2}`)}},
		{Content: "done"},
	}, answers(t, map[string][]string{"rooms": {`{"free": 3}`}, "hold": {`{"id": "h1"}`}, "get_hold": {`{"nights": 2.0, "price": 100}`}}))
	h.before()
	asked := askedExprNumbers(h, 1)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	for _, n := range graphCalls(h.trace()) {
		require.Equal(t, signals.StatusCompleted, n.Status, "%s: %s", n.Tool, n.Error)
		if n.CheckOf == "" {
			require.NotNil(t, n.Check, n.Tool)
			require.True(t, n.Check.Passed, n.Tool)
		}
	}
	require.Len(t, graphCalls(h.trace()), 3, "each call once, and the read-back")
	require.Zero(t, h.status().Unverified)
	require.Equal(t, 2, *asked, "both evaluations differ from a run's before the change")
}

// A run from before versionExprNumbers reads numbers as json.Number, as
// it did: the check cannot compare them.
func TestARunBeforeExprNumbersKeepsItsChecks(t *testing.T) {
	h := newHarness(t, numbersSpec("result.free > 0"), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "rooms", `{}`)}},
		{Content: "done"},
	}, answers(t, map[string][]string{"rooms": {`{"free": 3}`}}))
	h.before(versionExprNumbers)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	n := callNode(t, h.trace(), "n3")
	require.Equal(t, signals.StatusFailed, n.Status)
	require.Contains(t, n.Error, "invalid operation: json.Number > int")
}

// A check whose evaluation is the same either way asks no version.
func TestAVerifyWithoutNumbersAsksNoVersion(t *testing.T) {
	h := newHarness(t, numbersSpec("result.status == 'free' && result.free != nil"), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "rooms", `{}`)}},
		{Content: "done"},
	}, answers(t, map[string][]string{"rooms": {`{"status": "free", "free": 3}`}}))
	h.before()
	asked := askedExprNumbers(h, 1)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, callNode(t, h.trace(), "n3").Status)
	require.Zero(t, *asked)
}

// A verify with a loop in a loop over a long result stops at its cost
// bound: the call settles unverified with a reason that says so, within
// the workflow task (unbounded, it ran on for seconds).
func TestAVerifyOverItsCostBoundFailsTheCheck(t *testing.T) {
	parts := make([]string, 3000)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"id": %d}`, i)
	}
	result := `{"items": [` + strings.Join(parts, ",") + `]}`
	cond := "all(result.items, {let a = #; one(result.items, {.id == a.id})})"
	h := newHarness(t, numbersSpec(cond), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "rooms", `{}`)}},
		{Content: "done"},
	}, answers(t, map[string][]string{"rooms": {result}}))
	h.before()
	asked := askedExprNumbers(h, 1)
	start := time.Now()
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Less(t, time.Since(start), 8*time.Second)
	n := callNode(t, h.trace(), "n3")
	require.Equal(t, signals.StatusFailed, n.Status)
	require.Contains(t, n.Error, `could not be evaluated: it went over its cost bound of 4000000 units`)
	require.Equal(t, 1, *asked, "the unbounded evaluation's answer is not known: the version decides")
}

// largeItems is {"items": [...]} of 2000 items of about 200 bytes.
func largeItems() string {
	parts := make([]string, 2000)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"id": %d, "note": %q}`, i, strings.Repeat("n", 180))
	}
	return `{"items": [` + strings.Join(parts, ",") + `]}`
}

// A verify whose one step grows with the result, toJSON(result) in a loop
// over it, stops at its cost bound: the call settles unverified with a
// reason that says so (before, each step was counted one, whatever its
// work: the evaluation ran for seconds in the workflow task).
func TestAVerifyWithToJSONInALoopFailsTheCheck(t *testing.T) {
	cond := "all(result.items, {toJSON(result) != ''})"
	h := newHarness(t, numbersSpec(cond), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "rooms", `{}`)}},
		{Content: "done"},
	}, answers(t, map[string][]string{"rooms": {largeItems()}}))
	h.before()
	asked := askedExprNumbers(h, 1)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	n := callNode(t, h.trace(), "n3")
	require.Equal(t, signals.StatusFailed, n.Status)
	require.Contains(t, n.Error, `verify "`+cond+`" could not be evaluated: it went over its cost bound of 4000000 units`)
	require.Equal(t, 1, *asked, "the unbounded evaluation's answer is not known: the version decides")
}

// A graph edge's when over the input, toJSON(input) in a loop over it,
// stops at its cost bound: the run ends with an error naming the
// condition and the bound.
func TestAnEdgeWithToJSONInALoopEndsAtItsCostBound(t *testing.T) {
	when := "all(input.items, {toJSON(input) != ''})"
	spec := echoSpec()
	spec.Agent.Graph = &config.Graph{
		Start: "A",
		Nodes: map[string]config.GraphNode{
			"A": {Tool: "a", Args: map[string]any{"id": 1}},
			"B": {Tool: "b", Args: map[string]any{"id": 2}},
			"E": {End: true},
		},
		Edges: []config.GraphEdge{{From: "A", To: "B", When: when}, {From: "A", To: "E"}, {From: "B", To: "E"}},
	}
	h := newHarness(t, spec, nil, okEcho)
	asked := askedExprNumbers(h, 1)
	_, err := h.run(AgentInput{Agent: "agent", Task: "walk", Input: json.RawMessage(largeItems())})
	require.ErrorContains(t, err, `condition "`+when+`": it went over its cost bound of 4000000 units`)
	require.Len(t, h.toolReqs, 1, "no edge was taken")
	require.Equal(t, 1, *asked)
}
