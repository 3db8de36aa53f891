package eval

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

func call(id, tool string, status signals.NodeStatus, args, output, errText string) signals.Node {
	n := signals.Node{ID: id, Kind: signals.KindCall, Status: status, Tool: tool, Error: errText}
	if args != "" {
		n.Args = json.RawMessage(args)
	}
	if output != "" {
		n.Output = json.RawMessage(output)
	}
	return n
}

func TestFromRecordingTools(t *testing.T) {
	for _, tc := range []struct {
		name    string
		nodes   []signals.Node
		classes map[string]string
		want    []ToolResult
	}{
		{
			name: "a failure then a success, in trace order, the failure with its class",
			nodes: []signals.Node{
				{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted},
				call("n3", "search", signals.StatusFailed, `{"q":"nyc"}`, "", "tool search: HTTP 409: busy"),
				call("n5", "search", signals.StatusCompleted, `{"q":"nyc"}`, `{"hotel":"H1"}`, ""),
			},
			classes: map[string]string{"n3": "invalid_args"},
			want: []ToolResult{
				{Tool: "search", Args: map[string]any{"q": "nyc"}, Error: &ToolError{Class: "invalid_args", Message: "tool search: HTTP 409: busy"}},
				{Tool: "search", Args: map[string]any{"q": "nyc"}, Result: map[string]any{"hotel": "H1"}},
			},
		},
		{
			name:    "a failure of no known class is persistent; a timeout transient",
			nodes:   []signals.Node{call("n3", "a", signals.StatusFailed, `{}`, "", "refused"), call("n4", "b", signals.StatusFailed, `{}`, "", "timed out")},
			classes: map[string]string{"n4": "timeout"},
			want: []ToolResult{
				{Tool: "a", Args: map[string]any{}, Error: &ToolError{Class: "persistent", Message: "refused"}},
				{Tool: "b", Args: map[string]any{}, Error: &ToolError{Class: "transient", Message: "timed out"}},
			},
		},
		{
			name: "a call that failed its check is recorded as what its tool answered, and its read-back as a call",
			nodes: []signals.Node{
				{ID: "n3", Kind: signals.KindCall, Status: signals.StatusFailed, Tool: "book", Args: json.RawMessage(`{"room":"12"}`),
					Output: json.RawMessage(`{"id":"b1"}`), Error: "read-back get_booking: expect ... is false", Check: &signals.Check{Kind: signals.CheckReadBack}},
				{ID: "n4", Kind: signals.KindCall, Status: signals.StatusCompleted, Tool: "get_booking", Args: json.RawMessage(`{"id":"b1"}`),
					Output: json.RawMessage(`{"state":"missing"}`), CheckOf: "n3"},
			},
			want: []ToolResult{
				{Tool: "book", Args: map[string]any{"room": "12"}, Result: map[string]any{"id": "b1"}},
				{Tool: "get_booking", Args: map[string]any{"id": "b1"}, Result: map[string]any{"state": "missing"}},
			},
		},
		{
			name: "calls invalidated after they ended are kept, as they ended, with the class of the failure",
			nodes: []signals.Node{
				call("n2", "hold", signals.StatusInvalidated, `{"seat":"12A"}`, "", "tool hold: HTTP 503"),
				call("n3", "pick", signals.StatusInvalidated, `{"seat":"12A"}`, `{"id":"12A"}`, ""),
			},
			classes: map[string]string{"n2": "transient"},
			want: []ToolResult{
				{Tool: "hold", Args: map[string]any{"seat": "12A"}, Error: &ToolError{Class: "transient", Message: "tool hold: HTTP 503"}},
				{Tool: "pick", Args: map[string]any{"seat": "12A"}, Result: map[string]any{"id": "12A"}},
			},
		},
		{
			name: "unsettled (invalidated before they ended too), ledger-answered and engine calls are left out",
			nodes: []signals.Node{
				call("n2", "search", signals.StatusInvalidated, `{"q":"a"}`, "", ""),
				call("n3", "search", signals.StatusRunning, `{"q":"b"}`, "", ""),
				call("n4", signals.FinalOutputTool, signals.StatusCompleted, `{"x":1}`, `{"x":1}`, ""),
				call("n5", signals.HandoffTool, signals.StatusCompleted, `{"to":"b"}`, `{}`, ""),
				{ID: "n6", Kind: signals.KindCall, Status: signals.StatusCompleted, Tool: "book", ReusedFrom: "n2"},
			},
			want: []ToolResult{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := FromRecording(Recording{WorkflowID: "w", Input: workflows.AgentInput{Agent: "a", Task: "t"}, Nodes: tc.nodes, Classes: tc.classes})
			require.Equal(t, tc.want, c.Tools)
		})
	}
}

func TestOutcomeOf(t *testing.T) {
	loop := signals.Node{Kind: signals.KindEscalation, Status: signals.StatusCompleted, Args: json.RawMessage(`{"rung":"retry","loop":{"kind":"exact"}}`)}
	fallback := signals.Node{Kind: signals.KindEscalation, Status: signals.StatusCompleted, Args: json.RawMessage(`{"action":"model_fallback"}`)}
	repair := signals.Node{Kind: signals.KindRepair, Status: signals.StatusCompleted}
	gone := signals.Node{Kind: signals.KindRepair, Status: signals.StatusInvalidated}
	three := 3.0
	for _, tc := range []struct {
		name string
		rec  Recording
		want Outcome
	}{
		{
			name: "a completed run: result, spend, rungs, loops and repairs",
			rec: Recording{WorkflowID: "w1", Nodes: []signals.Node{loop, fallback, repair, gone}, Result: &workflows.AgentResult{
				Status: "completed", Output: json.RawMessage(`{"ok":true}`), Steps: 4,
				Escalations: []workflows.Escalation{{Action: "retry"}},
				Spend:       &signals.SpendStatus{ModelRequests: 3, ToolCalls: 2, InputTokens: 10, OutputTokens: 5, Cost: 0.5},
			}},
			want: Outcome{Run: "w1", Status: "completed", Output: map[string]any{"ok": true}, Steps: 4, ModelRequests: 3, ToolCalls: 2,
				InputTokens: 10, OutputTokens: 5, Cost: 0.5, Loops: 1, LoopsWithoutProgress: 1, Rungs: []string{"retry"}, Repairs: 1},
		},
		{
			name: "a loop the run got out of: the seconds from its first failure to the call that answered",
			rec: Recording{WorkflowID: "w3", Status: "completed", Nodes: []signals.Node{
				at(call("n2", "search", signals.StatusFailed, `{"q":"nyc"}`, "", "503"), 1),
				at(call("n3", "search", signals.StatusFailed, `{"q":"nyc"}`, "", "503"), 2),
				loopAt(2),
				at(call("n5", "search", signals.StatusCompleted, `{"q":"nyc"}`, `{}`, ""), 4),
			}},
			want: Outcome{Run: "w3", Status: "completed", Loops: 1, LoopToProgress: &three, Rungs: []string{"retry"}},
		},
		{
			name: "a failed run: its status and error, its rungs from the trace",
			rec:  Recording{WorkflowID: "w2", Status: "failed", Error: "boom", Nodes: []signals.Node{loop}},
			want: Outcome{Run: "w2", Status: "failed", Error: "boom", Loops: 1, LoopsWithoutProgress: 1, Rungs: []string{"retry"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, OutcomeOf(tc.rec))
		})
	}
}

func TestCaseName(t *testing.T) {
	for id, want := range map[string]string{
		"travel-20240115-093000-1a2b3c": "travel-20240115-093000-1a2b3c",
		"a/b c:d":                       "a_b_c_d",
		"../etc":                        "run.._etc",
		"":                              "run",
	} {
		require.Equal(t, want, CaseName(id), id)
	}
}

// An exported case is a valid case file: written, it loads again.
func TestFromRecordingWrites(t *testing.T) {
	c := FromRecording(Recording{
		WorkflowID: "w/1", Input: workflows.AgentInput{Agent: "a", Task: "t", Input: json.RawMessage(`{"n":1}`)},
		Nodes: []signals.Node{call("n3", "search", signals.StatusCompleted, `{"q":"x"}`, `[1,2]`, "")},
	})
	dir := t.TempDir()
	path, err := Write(dir, c)
	require.NoError(t, err)
	back, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, "w_1", back.Name)
	require.Equal(t, map[string]any{"n": 1}, back.Input)
	require.Equal(t, []any{1, 2}, back.Tools[0].Result)
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NotContains(t, string(text), "progress", "a run without a loop has no time to progress")

	// A loop's time to progress is written, and read back.
	c.Recorded = &Outcome{Status: "completed", Loops: 2, LoopToProgress: &[]float64{1.5}[0], LoopsWithoutProgress: 1}
	path, err = Write(dir, c)
	require.NoError(t, err)
	text, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(text), "  loops: 2\n  loop_to_progress: 1.5\n  loops_without_progress: 1\n")
	back, err = Load(path)
	require.NoError(t, err)
	require.Equal(t, c.Recorded, back.Recorded)
}
