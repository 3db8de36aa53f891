package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

var t0 = time.Date(2024, 1, 15, 9, 30, 0, 123_000_000, time.UTC)

func TestRenderTable(t *testing.T) {
	tests := []struct {
		name  string
		trace signals.Trace
		// rows are the expected lines after the header, as fields.
		rows [][]string
		// contains are substrings the output must hold.
		contains []string
	}{
		{
			name:  "empty trace",
			trace: signals.Trace{Generation: 0},
			rows:  nil,
		},
		{
			name: "task, request and call",
			trace: signals.Trace{Generation: 2, Nodes: []signals.Node{
				{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted, Agent: "travel", At: t0},
				{ID: "n2", Kind: signals.KindRequest, Status: signals.StatusCompleted, Parents: []string{"n1"}, Agent: "travel", At: t0.Add(1500 * time.Millisecond)},
				{ID: "n3", Kind: signals.KindCall, Status: signals.StatusFailed, Parents: []string{"n2", "n1"}, Agent: "travel", Tool: "book_flight",
					Args: json.RawMessage(`{"from": "NYC"}`), Error: "HTTP 503:\nservice\tunavailable", At: t0.Add(2 * time.Second)},
			}},
			rows: [][]string{
				{"n1", "task", "completed", "travel", "-", "-", "09:30:00.123", "-"},
				{"n2", "request", "completed", "travel", "-", "n1", "09:30:01.623", "-"},
				{"n3", "call", "failed", "travel", "book_flight", "n2,n1", "09:30:02.123", "error:", "HTTP", "503:", "service", "unavailable"},
			},
			contains: []string{"generation 2, 3 nodes"},
		},
		{
			name: "output wins over args, compacted",
			trace: signals.Trace{Nodes: []signals.Node{
				{ID: "c1", Kind: signals.KindCall, Status: signals.StatusCompleted, Agent: "a", Tool: "t",
					Args: json.RawMessage(`{"q": 1}`), Output: json.RawMessage("{\n  \"ok\": true\n}"), At: t0},
			}},
			rows: [][]string{{"c1", "call", "completed", "a", "t", "-", "09:30:00.123", `output:`, `{"ok":true}`}},
		},
		{
			name: "args when there is no output; zero time is a dash",
			trace: signals.Trace{Nodes: []signals.Node{
				{ID: "c1", Kind: signals.KindCall, Status: signals.StatusPending, Agent: "a", Tool: "t", Args: json.RawMessage(`{"q":1}`), Output: json.RawMessage("null")},
			}},
			rows: [][]string{{"c1", "call", "pending", "a", "t", "-", "-", "args:", `{"q":1}`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, renderTable(&buf, tt.trace))
			lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
			require.GreaterOrEqual(t, len(lines), 2)
			require.Equal(t, []string{"ID", "KIND", "STATUS", "AGENT", "TOOL", "PARENTS", "AT", "SUMMARY"}, strings.Fields(lines[1]))
			require.Len(t, lines[2:], len(tt.rows))
			for i, want := range tt.rows {
				require.Equal(t, want, strings.Fields(lines[2+i]), "row %d", i)
			}
			for _, s := range tt.contains {
				require.Contains(t, buf.String(), s)
			}
		})
	}
}

func TestRenderTableAlignsColumns(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, renderTable(&buf, signals.Trace{Nodes: []signals.Node{
		{ID: "n1", Kind: "task", Status: "completed", Agent: "travel", At: t0},
		{ID: "n100", Kind: "escalation", Status: "running", Agent: "refunds", At: t0},
	}}))
	lines := strings.Split(buf.String(), "\n")[1:4]
	col := strings.Index(lines[0], "KIND")
	for _, l := range lines[1:] {
		require.NotEqual(t, byte(' '), l[col], "a column starts at KIND in %q", l)
		require.Equal(t, byte(' '), l[col-1], "%q", l)
	}
}

func TestNodeSummaryTruncates(t *testing.T) {
	long := strings.Repeat("é", 200)
	tests := []struct {
		name string
		node signals.Node
		want string
	}{
		{"short error", signals.Node{Error: "boom"}, "error: boom"},
		{"nothing", signals.Node{}, ""},
		{"long error", signals.Node{Error: long}, "error: " + strings.Repeat("é", summaryWidth-len("error: ")-1) + "…"},
		{"newlines collapse", signals.Node{Error: "a\n\n  b"}, "error: a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := nodeSummary(tt.node)
			require.Equal(t, tt.want, got)
			require.LessOrEqual(t, len([]rune(got)), summaryWidth)
		})
	}
}

func TestRenderTableEditsAndInvalidated(t *testing.T) {
	tr := signals.Trace{Generation: 3, Nodes: []signals.Node{
		{ID: "n7", Kind: signals.KindCall, Status: signals.StatusCompleted, Agent: "travel", Tool: "search", Output: json.RawMessage(`{"flights":[1]}`), At: t0},
		{ID: "n8", Kind: signals.KindRequest, Status: signals.StatusInvalidated, Parents: []string{"n7"}, Agent: "travel", At: t0},
		{ID: "n9", Kind: signals.KindCall, Status: signals.StatusInvalidated, Parents: []string{"n8"}, Agent: "travel", Tool: "book", At: t0},
		{ID: "n10", Kind: signals.KindEdit, Status: signals.StatusCompleted, Parents: []string{"n7"}, Agent: "travel", At: t0,
			By: "alice", Reason: "wrong\ndate", Before: json.RawMessage(`{"date": "2024-01-15"}`), After: json.RawMessage(`{"date": "2024-01-16"}`)},
		{ID: "n11", Kind: signals.KindCall, Status: signals.StatusCompleted, Parents: []string{"n10"}, Agent: "travel", Tool: "book",
			Output: json.RawMessage(`{"booking_id":"B1"}`), ReusedFrom: "n5", At: t0},
		{ID: "n12", Kind: signals.KindEdit, Status: signals.StatusCompleted, Parents: []string{"n1"}, Agent: "travel", After: json.RawMessage(`"new task"`), At: t0},
	}}
	var buf bytes.Buffer
	require.NoError(t, renderTable(&buf, tr))
	out := buf.String()
	lines := strings.Split(out, "\n")

	require.Equal(t, "generation 3, 6 nodes, 2 invalidated", lines[0])
	require.Equal(t, []string{"n8", "request", "invalidated", "travel", "-", "n7", "09:30:00.123", "-"}, strings.Fields(lines[3]))
	// The row is clipped like any summary; the edits section has it whole.
	require.Equal(t, []string{"n10", "edit", "completed", "travel", "-", "n7", "09:30:00.123",
		"by", "alice", "(wrong", "date):", `{"date":"2024-01-15"}`, "->", `{"date":"20…`}, strings.Fields(lines[5]))
	require.Equal(t, []string{"n11", "call", "completed", "travel", "book", "n10", "09:30:00.123",
		"reused", "n5;", "output:", `{"booking_id":"B1"}`}, strings.Fields(lines[6]))
	require.Equal(t, []string{"n12", "edit", "completed", "travel", "-", "n1", "09:30:00.123",
		"by", "-:", "-", "->", `"new`, `task"`}, strings.Fields(lines[7]))

	require.Contains(t, out, "\nedits:\n"+
		"  n10 by alice, reason: wrong date\n"+
		"    before: {\"date\":\"2024-01-15\"}\n"+
		"    after:  {\"date\":\"2024-01-16\"}\n"+
		"  n12 by -, reason: -\n"+
		"    before: -\n"+
		"    after:  \"new task\"\n")
}

func TestRenderTableWithoutEditsHasNoEditsSection(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, renderTable(&buf, signals.Trace{Nodes: []signals.Node{
		{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted, Agent: "a", At: t0},
	}}))
	require.NotContains(t, buf.String(), "edits:")
	require.NotContains(t, buf.String(), "invalidated")
	require.True(t, strings.HasPrefix(buf.String(), "generation 0, 1 nodes\n"), buf.String())
}

func TestNodeSummaryOfAReusedWriteWithoutOutput(t *testing.T) {
	require.Equal(t, "reused n5", nodeSummary(signals.Node{Kind: signals.KindCall, ReusedFrom: "n5"}))
}

func TestEditValueIsClipped(t *testing.T) {
	long := json.RawMessage(`"` + strings.Repeat("x", 500) + `"`)
	got := editValue(long)
	require.Len(t, []rune(got), editWidth)
	require.True(t, strings.HasSuffix(got, "…"))
}

// A handoff shows who handed to whom and why, not its context.
func TestNodeSummaryOfAHandoff(t *testing.T) {
	n := signals.Node{ID: "n4", Kind: signals.KindHandoff, Status: signals.StatusCompleted, From: "general", To: "orders",
		Reason: "out_of_scope", By: "alice", Output: json.RawMessage(`{"version": 1, "conversation": []}`),
		Refused: []signals.HandoffRefusal{{Agent: "refunds", Why: "no capability match"}}}
	require.Equal(t, "general -> orders (out_of_scope) by alice; refused refunds: no capability match", handoffSummary(n))
	require.True(t, strings.HasPrefix(nodeSummary(n), "general -> orders (out_of_scope) by alice"), nodeSummary(n))
	n.To, n.Error = "", "no agent can take the run: refunds (no capability match)"
	require.True(t, strings.HasPrefix(nodeSummary(n), "error: no agent can take the run"), nodeSummary(n))
}

// A call a fallback served names the tool that ran and the one asked for.
func TestRenderTableNamesTheFallback(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, renderTable(&buf, signals.Trace{Nodes: []signals.Node{
		{ID: "n3", Kind: signals.KindCall, Status: signals.StatusCompleted, Agent: "travel", Tool: "book_backup", FallbackOf: "book_flight", At: t0},
		{ID: "n4", Kind: signals.KindCall, Status: signals.StatusCompleted, Agent: "travel", Tool: "book_flight", At: t0},
	}}))
	require.Contains(t, buf.String(), "book_backup (fallback of book_flight)")
	require.NotContains(t, strings.SplitN(buf.String(), "n4", 2)[1], "fallback of")
	require.Contains(t, mermaidLabel(signals.Node{ID: "n3", Kind: signals.KindCall, Tool: "b", FallbackOf: "a"}), "b (fallback of a)")
}
