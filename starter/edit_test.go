package main

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"

	"github.com/unstuck-dev/unstuck/signals"
)

// expectUpdate expects one update of wf-1, records its options, and
// answers with answer (JSON-encoded and decoded, as over the wire), or
// fails with err.
func expectUpdate(t *testing.T, m *mocks.Client, opts *client.UpdateWorkflowOptions, answer any, err error) {
	h := mocks.NewWorkflowUpdateHandle(t)
	h.On("Get", mock.Anything, mock.Anything).Return(func(_ context.Context, ptr any) error {
		if err != nil {
			return err
		}
		return mustJSON(t, answer).Get(ptr)
	}).Once()
	m.On("UpdateWorkflow", anyCtx, mock.Anything).
		Run(func(args mock.Arguments) { *opts = args.Get(1).(client.UpdateWorkflowOptions) }).
		Return(h, nil).Once()
}

// wireJSON is v as the run receives it.
func wireJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestEditSendsTheUpdate(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		run   string
		want  string // the update's argument, as JSON
	}{
		{
			name:  "args, compacted, with audit",
			flags: []string{"--node", "n7", "--args", `{ "date": "2024-01-16" }`, "--by", "alice", "--reason", "wrong date"},
			want:  `{"node_id":"n7","args":{"date":"2024-01-16"},"by":"alice","reason":"wrong date"}`,
		},
		{
			name:  "output JSON of any kind",
			flags: []string{"--node", "n9", "--output", "[1, 2]"},
			want:  `{"node_id":"n9","output":[1,2]}`,
		},
		{
			name:  "output text becomes a JSON string",
			flags: []string{"--node", "n1", "--output-text", `Book "NYC" to LAX`},
			want:  `{"node_id":"n1","output":"Book \"NYC\" to LAX"}`,
		},
		{
			name:  "empty output text is a value",
			flags: []string{"--node", "n2", "--output-text", ""},
			want:  `{"node_id":"n2","output":""}`,
		},
		{
			name:  "fork and run id",
			flags: []string{"--node", "n3", "--output", `{"content": "x"}`, "--fork", "--run-id", "r9"},
			run:   "r9",
			want:  `{"node_id":"n3","output":{"content":"x"},"fork":true}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, dial := fakeTemporal(t)
			var opts client.UpdateWorkflowOptions
			expectUpdate(t, m, &opts, signals.EditResult{NodeID: "n20", Edited: "n7", Generation: 1}, nil)
			r := runCLI(t, dial, append([]string{"edit", "wf-1"}, tt.flags...)...)
			require.Equal(t, exitOK, r.code, r.stderr)
			require.Equal(t, "wf-1", opts.WorkflowID)
			require.Equal(t, tt.run, opts.RunID)
			require.Equal(t, signals.Edit, opts.UpdateName)
			require.Equal(t, client.WorkflowUpdateStageCompleted, opts.WaitForStage)
			require.Len(t, opts.Args, 1)
			require.JSONEq(t, tt.want, wireJSON(t, opts.Args[0]))
		})
	}
}

func TestEditPrintsTheAnswer(t *testing.T) {
	tests := []struct {
		name   string
		flags  []string
		answer signals.EditResult
		want   []string
		not    []string
	}{
		{
			name:   "edit in place",
			answer: signals.EditResult{NodeID: "n20", Edited: "n7", Invalidated: []string{"n8", "n9"}, Generation: 3},
			want: []string{
				"wf-1: node n7 edited (edit node n20)\n",
				"  invalidated: n8, n9\n",
				"as generation 3",
			},
			not: []string{"fork"},
		},
		{
			name:   "nothing invalidated",
			answer: signals.EditResult{NodeID: "n20", Edited: "n7", Generation: 1},
			want:   []string{"  invalidated: none\n", "as generation 1"},
		},
		{
			name:   "fork",
			flags:  []string{"--fork"},
			answer: signals.EditResult{NodeID: "n20", Edited: "n7", WorkflowID: "wf-1-fork-abc"},
			want: []string{
				"node n7 edited in a fork (edit node n20); the run itself is unchanged",
				"  fork:        wf-1-fork-abc\n",
				"unstuck status wf-1-fork-abc",
			},
			not: []string{"generation"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, dial := fakeTemporal(t)
			var opts client.UpdateWorkflowOptions
			expectUpdate(t, m, &opts, tt.answer, nil)
			r := runCLI(t, dial, append([]string{"edit", "wf-1", "--node", "n7", "--args", "{}"}, tt.flags...)...)
			require.Equal(t, exitOK, r.code, r.stderr)
			for _, s := range tt.want {
				require.Contains(t, r.stdout, s)
			}
			for _, s := range tt.not {
				require.NotContains(t, r.stdout, s)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		m, dial := fakeTemporal(t)
		var opts client.UpdateWorkflowOptions
		answer := signals.EditResult{NodeID: "n20", Edited: "n7", Invalidated: []string{"n8"}, Generation: 2}
		expectUpdate(t, m, &opts, answer, nil)
		r := runCLI(t, dial, "edit", "wf-1", "--node", "n7", "--output-text", "x", "--json")
		require.Equal(t, exitOK, r.code, r.stderr)
		require.JSONEq(t, `{"node_id":"n20","edited":"n7","invalidated":["n8"],"generation":2}`, r.stdout)
	})
}

func TestEditSignal(t *testing.T) {
	m, dial := fakeTemporal(t)
	// No UpdateWorkflow is expected: the mock fails the test if one is made.
	m.On("SignalWorkflow", anyCtx, "wf-1", "r2", signals.Edit, signals.EditRequest{
		NodeID: "n4", Output: json.RawMessage(`"new task"`), Fork: true, Audit: signals.Audit{By: "bob"},
	}).Return(nil).Once()
	r := runCLI(t, dial, "edit", "wf-1", "--node", "n4", "--output-text", "new task", "--fork", "--by", "bob", "--signal", "--run-id", "r2")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, "edit signal sent to wf-1 (see `unstuck trace wf-1` for what it did)\n", r.stdout)
}

func TestEditFailures(t *testing.T) {
	t.Run("refused by the run", func(t *testing.T) {
		m, dial := fakeTemporal(t)
		var opts client.UpdateWorkflowOptions
		expectUpdate(t, m, &opts, nil, errors.New("node n7 is not a call: --args edits a call"))
		r := runCLI(t, dial, "edit", "wf-1", "--node", "n7", "--args", `{"a": 1}`)
		require.Equal(t, exitFailure, r.code)
		require.Equal(t, "unstuck: edit for wf-1 failed: node n7 is not a call: --args edits a call\n", r.stderr)
		require.Empty(t, r.stdout)
	})
	t.Run("closed or missing run points at fork", func(t *testing.T) {
		m, dial := fakeTemporal(t)
		m.On("UpdateWorkflow", anyCtx, mock.Anything).Return(nil, serviceerror.NewNotFound("workflow execution already completed")).Once()
		expectClosed(m, "wf-1")
		r := runCLI(t, dial, "--namespace", "ns1", "edit", "wf-1", "--node", "n7", "--args", `{"a": 1}`)
		require.Equal(t, exitFailure, r.code)
		require.Contains(t, r.stderr, "unstuck: edit for wf-1 failed: run wf-1 completed: it takes no edit")
		require.Contains(t, r.stderr, `not in namespace "ns1", or its run is closed`)
		require.Contains(t, r.stderr, "unstuck fork wf-1 --node n7")
	})
	t.Run("signal to a closed run", func(t *testing.T) {
		m, dial := fakeTemporal(t)
		m.On("SignalWorkflow", anyCtx, "wf-1", "", signals.Edit, mock.Anything).Return(serviceerror.NewNotFound("workflow execution already completed")).Once()
		expectClosed(m, "wf-1")
		r := runCLI(t, dial, "edit", "wf-1", "--node", "n7", "--args", `{"a": 1}`, "--signal")
		require.Equal(t, exitFailure, r.code)
		require.Contains(t, r.stderr, "unstuck fork wf-1 --node n7")
		require.Empty(t, r.stdout)
	})
}

func TestEditUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no workflow id", []string{"edit", "--node", "n1", "--args", "{}"}, "unstuck edit needs a WORKFLOW_ID"},
		{"no --node", []string{"edit", "wf-1", "--args", "{}"}, "--node is required"},
		{"blank --node", []string{"edit", "wf-1", "--node", " ", "--args", "{}"}, "--node is required"},
		{"no change", []string{"edit", "wf-1", "--node", "n1", "--by", "alice"}, "say what changes: --output JSON or --output-text TEXT"},
		{"--output and --args", []string{"edit", "wf-1", "--node", "n1", "--output", "1", "--args", "{}"}, "--output and --args cannot be used together"},
		{"--output and --output-text", []string{"edit", "wf-1", "--node", "n1", "--output", "1", "--output-text", "x"}, "--output and --output-text cannot be used together"},
		{"all three", []string{"edit", "wf-1", "--node", "n1", "--output", "1", "--output-text", "x", "--args", "{}"}, "--output and --output-text and --args cannot be used together"},
		{"--output not JSON", []string{"edit", "wf-1", "--node", "n1", "--output", "plain words"}, "--output is not valid JSON"},
		{"--output not JSON hints --output-text", []string{"edit", "wf-1", "--node", "n1", "--output", "plain"}, "for plain text, use --output-text"},
		{"--output empty", []string{"edit", "wf-1", "--node", "n1", "--output", ""}, "--output is empty"},
		{"--output trailing data", []string{"edit", "wf-1", "--node", "n1", "--output", "1 2"}, "--output has extra data after the JSON value"},
		{"--args not JSON", []string{"edit", "wf-1", "--node", "n1", "--args", "{nope"}, "--args is not valid JSON"},
		{"--args an array", []string{"edit", "wf-1", "--node", "n1", "--args", "[1]"}, "--args must be a JSON object"},
		{"--args a string", []string{"edit", "wf-1", "--node", "n1", "--args", `"x"`}, "--args must be a JSON object"},
		{"--args empty", []string{"edit", "wf-1", "--node", "n1", "--args", ""}, "--args is empty"},
		{"--json with --signal", []string{"edit", "wf-1", "--node", "n1", "--args", "{}", "--signal", "--json"}, "--json prints the run's answer, and a --signal has none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, noDial(t), tt.args...)
			require.Equal(t, exitUsage, r.code, "stderr: %s", r.stderr)
			require.Contains(t, r.stderr, tt.want)
			require.Contains(t, r.stderr, "Run 'unstuck edit --help' for usage.")
			require.Empty(t, r.stdout)
		})
	}
}
