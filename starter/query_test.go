package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"

	"github.com/unstuck-dev/unstuck/signals"
)

func TestStatusQueriesTheRun(t *testing.T) {
	st := signals.Status{Agent: "travel", Phase: signals.PhaseAwaitingHuman, Step: 4, Breakers: map[string]string{"book_flight": "half_open"}}
	tests := []struct {
		name string
		args []string
		run  string
		want func(t *testing.T, stdout string)
	}{
		{"block", []string{"status", "wf-1"}, "", func(t *testing.T, out string) {
			require.Contains(t, out, "phase:")
			require.Contains(t, out, "awaiting_human")
			require.Contains(t, out, "book_flight  half_open")
		}},
		{"json with run id", []string{"status", "wf-1", "--run-id", "r9", "--json"}, "r9", func(t *testing.T, out string) {
			var got signals.Status
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			require.Equal(t, st.Agent, got.Agent)
			require.Equal(t, st.Breakers, got.Breakers)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, dial := fakeTemporal(t)
			m.On("QueryWorkflow", anyCtx, "wf-1", tt.run, signals.QueryStatus).Return(mustJSON(t, st), nil).Once()
			r := runCLI(t, dial, tt.args...)
			require.Equal(t, exitOK, r.code, r.stderr)
			tt.want(t, r.stdout)
		})
	}
}

func TestTraceFormats(t *testing.T) {
	tr := signals.Trace{Generation: 1, Nodes: []signals.Node{
		{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted, Agent: "travel", At: time.Date(2024, 1, 15, 9, 30, 0, 0, time.UTC)},
		{ID: "n2", Kind: signals.KindCall, Status: signals.StatusFailed, Parents: []string{"n1"}, Agent: "travel", Tool: "book_flight", Error: "HTTP 503"},
	}}
	tests := []struct {
		format string
		want   []string
	}{
		{"", []string{"ID  KIND", "n2  call  failed", "error: HTTP 503"}},
		{"table", []string{"n1  task  completed  travel  -            -        09:30:00.000"}},
		{"json", []string{`"generation": 1`, `"tool": "book_flight"`}},
		{"mermaid", []string{"flowchart TD", "n_n1 --> n_n2", "class n_n2 failed"}},
	}
	for _, tt := range tests {
		t.Run("format "+tt.format, func(t *testing.T) {
			m, dial := fakeTemporal(t)
			m.On("QueryWorkflow", anyCtx, "wf-1", "", signals.QueryTrace).Return(mustJSON(t, tr), nil).Once()
			args := []string{"trace", "wf-1"}
			if tt.format != "" {
				args = append(args, "--format", tt.format)
			}
			r := runCLI(t, dial, args...)
			require.Equal(t, exitOK, r.code, r.stderr)
			for _, w := range tt.want {
				require.Contains(t, r.stdout, w)
			}
		})
	}
}

func TestQueryNotFound(t *testing.T) {
	m, dial := fakeTemporal(t)
	m.On("QueryWorkflow", anyCtx, "nope", "", signals.QueryTrace).Return(nil, serviceerror.NewNotFound("workflow not found"))
	r := runCLI(t, dial, "--namespace", "default", "trace", "nope")
	require.Equal(t, exitFailure, r.code)
	require.Contains(t, r.stderr, `unstuck: workflow nope not found in namespace "default"`)
}

// A trace answered in pages is read whole (since the last page's next)
// and rendered as one, in every format.
func TestTracePagesAreRenderedWhole(t *testing.T) {
	at := time.Date(2024, 1, 15, 9, 30, 0, 0, time.UTC)
	first := signals.Trace{Generation: 1, Next: "n2", Nodes: []signals.Node{
		{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted, Agent: "travel", At: at},
		{ID: "n2", Kind: signals.KindRequest, Status: signals.StatusCompleted, Parents: []string{"n1"}, Agent: "travel", At: at},
	}}
	second := signals.Trace{Generation: 2, Nodes: []signals.Node{
		{ID: "n3", Kind: signals.KindCall, Status: signals.StatusFailed, Parents: []string{"n2"}, Agent: "travel", Tool: "book_flight", Error: "HTTP 503", At: at},
		{ID: "n4", Kind: signals.KindOutput, Status: signals.StatusCompleted, Parents: []string{"n3"}, Agent: "travel", At: at},
	}}
	tests := []struct {
		format string
		want   []string
	}{
		{"table", []string{"n1  task", "n2  request", "n3  call", "n4  output", "error: HTTP 503"}},
		{"mermaid", []string{"n_n1 --> n_n2", "n_n2 --> n_n3", "n_n3 --> n_n4", "class n_n3 failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			m, dial := fakeTemporal(t)
			m.On("QueryWorkflow", anyCtx, "wf-1", "r1", signals.QueryTrace).Return(mustJSON(t, first), nil).Once()
			m.On("QueryWorkflow", anyCtx, "wf-1", "r1", signals.QueryTrace, signals.TracePage{Since: "n2", Limit: signals.MaxTracePageLimit}).
				Return(mustJSON(t, second), nil).Once()
			r := runCLI(t, dial, "trace", "wf-1", "--run-id", "r1", "--format", tt.format)
			require.Equal(t, exitOK, r.code, r.stderr)
			for _, w := range tt.want {
				require.Contains(t, r.stdout, w)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		m, dial := fakeTemporal(t)
		m.On("QueryWorkflow", anyCtx, "wf-1", "", signals.QueryTrace).Return(mustJSON(t, first), nil).Once()
		m.On("QueryWorkflow", anyCtx, "wf-1", "", signals.QueryTrace, signals.TracePage{Since: "n2", Limit: signals.MaxTracePageLimit}).
			Return(mustJSON(t, second), nil).Once()
		r := runCLI(t, dial, "trace", "wf-1", "--format", "json")
		require.Equal(t, exitOK, r.code, r.stderr)
		var got signals.Trace
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
		require.Equal(t, append(append([]signals.Node(nil), first.Nodes...), second.Nodes...), got.Nodes)
		require.Equal(t, 2, got.Generation, "the latest page's generation")
		require.Empty(t, got.Next)
		require.NotContains(t, r.stdout, `"next"`)
	})
}

// A run that answers a page that does not advance is an error, not an
// endless loop.
func TestTracePagesMustAdvance(t *testing.T) {
	m, dial := fakeTemporal(t)
	stuck := signals.Trace{Next: "n1", Nodes: []signals.Node{{ID: "n1", Kind: signals.KindTask}}}
	m.On("QueryWorkflow", anyCtx, "wf-1", "", signals.QueryTrace).Return(mustJSON(t, stuck), nil).Once()
	m.On("QueryWorkflow", anyCtx, "wf-1", "", signals.QueryTrace, signals.TracePage{Since: "n1", Limit: signals.MaxTracePageLimit}).
		Return(mustJSON(t, stuck), nil).Once()
	r := runCLI(t, dial, "trace", "wf-1")
	require.Equal(t, exitFailure, r.code)
	require.Contains(t, r.stderr, `the trace page after "n1" does not advance`)
}
