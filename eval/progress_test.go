package eval

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

// t0 is when the nodes of these tests begin; at(s) is s seconds later.
var t0 = time.Date(2024, 1, 15, 9, 30, 0, 0, time.UTC)

func at(n signals.Node, seconds int) signals.Node {
	n.At = t0.Add(time.Duration(seconds) * time.Second)
	return n
}

// loopAt is an escalation for a loop.
func loopAt(seconds int) signals.Node {
	return at(signals.Node{Kind: signals.KindEscalation, Status: signals.StatusCompleted, Args: json.RawMessage(`{"rung":"retry","loop":{"kind":"no_progress"}}`)}, seconds)
}

func TestProgressMarks(t *testing.T) {
	ok := func(tool, args string) signals.Node { return call("", tool, signals.StatusCompleted, args, `{}`, "") }
	for _, tc := range []struct {
		name  string
		nodes []signals.Node
		want  []bool
	}{
		{"a call completed with new arguments is progress, again with the same (key order aside) is not",
			[]signals.Node{ok("search", `{"q":"a","n":1}`), ok("search", `{"n":1,"q":"a"}`), ok("search", `{"q":"b"}`), ok("lookup", `{"q":"a"}`)},
			[]bool{true, false, true, true}},
		{"failed, running and invalidated calls are not, and do not make a later one old",
			[]signals.Node{call("", "search", signals.StatusFailed, `{}`, "", "503"), call("", "search", signals.StatusInvalidated, `{}`, `{}`, ""),
				call("", "search", signals.StatusRunning, `{}`, "", ""), ok("search", `{}`)},
			[]bool{false, false, false, true}},
		{"the final output and a handoff are, however often",
			[]signals.Node{ok(signals.FinalOutputTool, `{}`), ok(signals.FinalOutputTool, `{}`), ok(signals.HandoffTool, `{}`),
				{Kind: signals.KindOutput, Status: signals.StatusCompleted}, {Kind: signals.KindHandoff, Status: signals.StatusCompleted},
				{Kind: signals.KindHandoff, Status: signals.StatusFailed}},
			[]bool{true, true, true, true, true, false}},
		{"requests, repairs and escalations are not",
			[]signals.Node{{Kind: signals.KindRequest, Status: signals.StatusCompleted}, {Kind: signals.KindRepair, Status: signals.StatusCompleted}, loopAt(0)},
			[]bool{false, false, false}},
		{"arguments that are not JSON are keyed as written",
			[]signals.Node{ok("search", `not json`), ok("search", `not json`)},
			[]bool{true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, progressMarks(tc.nodes))
		})
	}
}

func TestLoopsToProgress(t *testing.T) {
	failed := func(s int) signals.Node {
		return at(call("", "search", signals.StatusFailed, `{"q":"nyc"}`, "", "503"), s)
	}
	found := func(s int) signals.Node {
		return at(call("", "search", signals.StatusCompleted, `{"q":"nyc"}`, `{"hotel":"H1"}`, ""), s)
	}
	request := func(s int) signals.Node {
		return at(signals.Node{Kind: signals.KindRequest, Status: signals.StatusCompleted}, s)
	}
	output := at(call("", signals.FinalOutputTool, signals.StatusCompleted, `{}`, `{}`, ""), 60)
	for _, tc := range []struct {
		name    string
		nodes   []signals.Node
		seconds []float64
		stuck   int
	}{
		{"no loop", []signals.Node{request(0), found(1), output}, nil, 0},
		{"from the first failure of the run to the call that answered",
			[]signals.Node{request(0), failed(2), failed(3), failed(5), loopAt(5), found(9), output}, []float64{7}, 0},
		{"from the first call after the last progress, to the final output",
			[]signals.Node{found(1), found(10), found(12), found(14), loopAt(14), request(20), output}, []float64{50}, 0},
		{"a loop of requests with no call counts from its escalation",
			[]signals.Node{found(1), request(2), request(3), loopAt(4), output}, []float64{56}, 0},
		{"two loops of one stretch share its first event",
			[]signals.Node{failed(2), failed(3), loopAt(3), failed(4), loopAt(4), found(8)}, []float64{6, 6}, 0},
		{"calls a rollback invalidated are left out: the loop counts from its escalation",
			[]signals.Node{found(1), at(call("", "search", signals.StatusInvalidated, `{"q":"nyc"}`, "", "503"), 6), loopAt(5), output}, []float64{55}, 0},
		{"a loop no progress followed is stuck",
			[]signals.Node{found(1), failed(2), failed(3), loopAt(3), failed(4)}, nil, 1},
		{"an invalidated escalation is no loop",
			[]signals.Node{failed(2), {Kind: signals.KindEscalation, Status: signals.StatusInvalidated, Args: json.RawMessage(`{"loop":{}}`)}, found(3)}, nil, 0},
		{"an escalation without a loop (a model fallback) is none",
			[]signals.Node{failed(2), {Kind: signals.KindEscalation, Status: signals.StatusCompleted, Args: json.RawMessage(`{"action":"model_fallback","loop":null}`)}, found(3)}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seconds, stuck := loopsToProgress(tc.nodes)
			require.Equal(t, tc.seconds, seconds)
			require.Equal(t, tc.stuck, stuck)
		})
	}
}

func TestMeanLoopToProgress(t *testing.T) {
	s := func(f float64) *float64 { return &f }
	require.Nil(t, meanLoopToProgress(nil))
	require.Nil(t, meanLoopToProgress([]Run{{Outcome: Outcome{Loops: 1, LoopsWithoutProgress: 1}}}))
	runs := []Run{{Outcome: Outcome{LoopToProgress: s(2)}}, {}, {Outcome: Outcome{LoopToProgress: s(5)}}}
	require.Equal(t, s(3.5), meanLoopToProgress(runs), "the runs without one are left out, not counted as 0")
	require.Equal(t, s(1.167), meanSeconds([]float64{1.1661, 1.1671}), "to the millisecond")
}
