package workflows

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
)

// Numbers a run must carry with every digit: an order id above 2^53 (a
// float64 makes it ...992), an integer above int64 and a decimal with more
// digits than a float64 holds.
const (
	exactID   = "9007199254740993"
	exactBig  = "123456789012345678901234567890"
	exactFrac = "0.1000000000000000055511151231257827"
	exactDoc  = `{"id":` + exactID + `,"big":` + exactBig + `,"frac":` + exactFrac + `}`
)

// requireExact checks that JSON holds the three numbers with every digit.
func requireExact(t *testing.T, doc []byte, what string) {
	t.Helper()
	for _, n := range []string{exactID, exactBig, exactFrac} {
		require.Contains(t, string(doc), n, "%s: %s", what, doc)
	}
}

// exactState is State as a call with _outputPath †state.order left it.
func exactState(t *testing.T) refs.State {
	t.Helper()
	v, err := decodeJSON([]byte(exactDoc))
	require.NoError(t, err)
	return refs.State{"order": refs.Exact(v)}
}

// A tool's result written to State, read by the next call's references
// and by the final output: the tool, the trace and the result all see the
// exact numbers.
func TestNumbersStayExactThroughReferences(t *testing.T) {
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("c1", "a", `{"q":"find the order","_outputPath":"†state.order"}`)}},
		{ToolCalls: []activities.ToolCall{call("c2", "b", `{"id":"†state.order.id","big":"†state.order.big","frac":"†state.order.frac"}`)}},
		{ToolCalls: []activities.ToolCall{call("c3", "final_output", `{"order":"†state.order","id":"†state.order.id"}`)}},
	}, func(req activities.ToolRequest) (json.RawMessage, error) {
		if req.Tool.Name == "a" {
			return json.RawMessage(exactDoc), nil
		}
		return req.Args, nil
	})
	res, err := h.run(AgentInput{Agent: "agent", Task: "find and book"})
	require.NoError(t, err)

	require.Len(t, h.toolReqs, 2)
	require.JSONEq(t, exactDoc, string(h.toolReqs[1].Args))
	requireExact(t, h.toolReqs[1].Args, "the resolved arguments of the second call")

	calls := nodesByKind(h.trace(), signals.KindCall)
	requireExact(t, calls[0].Output, "the trace query's output of the first call")
	requireExact(t, calls[1].Args, "the trace query's arguments of the second call")
	requireExact(t, calls[1].Output, "the trace query's output of the second call")

	requireExact(t, res.Output, "the run's result")
	require.Contains(t, string(res.Output), `"id":`+exactID)
}

// State carried across continue-as-new (through Temporal's JSON payloads)
// keeps its numbers: the next generation's references resolve them exact,
// and an edge condition still compares a whole number as a number.
func TestNumbersStayExactAcrossContinueAsNew(t *testing.T) {
	spec := echoSpec()
	run := startedRun(spec)
	run.State = exactState(t)
	h := newHarness(t, spec, []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("c1", "b", `{"id":"†state.order.id","big":"†state.order.big","frac":"†state.order.frac"}`)}},
		{ToolCalls: []activities.ToolCall{call("c2", "final_output", `{"id":"†state.order.id"}`)}},
	}, okEcho)
	var in AgentInput
	require.NoError(t, carryRun(&in, run))
	require.NotNil(t, in.Continued, "small: carried as plain JSON")
	res, err := h.run(in)
	require.NoError(t, err)
	require.Len(t, h.toolReqs, 1)
	require.JSONEq(t, exactDoc, string(h.toolReqs[0].Args))
	requireExact(t, h.toolReqs[0].Args, "arguments resolved from carried State")
	require.JSONEq(t, `{"id":`+exactID+`}`, string(res.Output))
}

// carryRun/uncarryRun and plain JSON: State comes back with the same
// numbers, as numbers where they fit (int64, float64) and as their text
// otherwise.
func TestCarriedStateKeepsExactNumbers(t *testing.T) {
	want := refs.State{"order": map[string]any{
		"id": int64(9007199254740993), "big": json.Number(exactBig), "frac": json.Number(exactFrac),
	}}

	t.Run("plain", func(t *testing.T) {
		run := startedRun(echoSpec())
		run.State = exactState(t)
		var in AgentInput
		require.NoError(t, carryRun(&in, run))
		require.NotNil(t, in.Continued)
		data, err := json.Marshal(in) // as Temporal's payload converter does
		require.NoError(t, err)
		requireExact(t, data, "the carried input")
		var back AgentInput
		require.NoError(t, json.Unmarshal(data, &back))
		require.Equal(t, want, back.Continued.State)
	})

	t.Run("gzip", func(t *testing.T) {
		run := bigRun(400, strings.Repeat(`{"flight":"UA1","price":289}`, 200))
		run.State = exactState(t)
		var in AgentInput
		require.NoError(t, carryRun(&in, run))
		require.NotEmpty(t, in.ContinuedGzip)
		back, err := uncarryRun(in.ContinuedGzip)
		require.NoError(t, err)
		require.Equal(t, want, back.State)
	})

	t.Run("a run carried by an earlier version", func(t *testing.T) {
		var run Run
		require.NoError(t, json.Unmarshal([]byte(`{"state":{"n":2,"f":0.5,"id":`+exactID+`}}`), &run))
		require.Equal(t, refs.State{"n": int64(2), "f": 0.5, "id": int64(9007199254740993)}, run.State)
	})
}

// A human's reply written to State keeps its numbers too, and edge
// conditions read the input's numbers as State holds them.
func TestStateValueKeepsExactNumbers(t *testing.T) {
	doc := json.RawMessage(`{"id":` + exactID + `,"n":3,"f":0.25,"big":` + exactBig + `}`)
	r := &runner{run: &Run{}}
	require.Equal(t, map[string]any{"id": int64(9007199254740993), "n": int64(3), "f": 0.25, "big": json.Number(exactBig)},
		r.stateValue(decodeOrString(doc)))
	r.run.Input.Input = json.RawMessage(`{"n": 4, "big": ` + exactBig + `}`)
	require.Equal(t, int64(4), r.inputMap()["n"])
	require.Equal(t, json.Number(exactBig), r.inputMap()["big"])
}
