package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// expectStart expects one ExecuteWorkflow of AgentWorkflow, records its
// options and input, and answers with a run whose Get calls get.
func expectStart(t *testing.T, m *mocks.Client, opts *client.StartWorkflowOptions, in *workflows.AgentInput, get func(ptr any) error) {
	run := mocks.NewWorkflowRun(t)
	run.On("GetID").Return(func() string { return opts.ID }).Maybe()
	run.On("GetRunID").Return("run-1").Maybe()
	if get != nil {
		run.On("Get", mock.Anything, mock.Anything).Return(func(_ context.Context, ptr any) error { return get(ptr) })
	}
	m.On("ExecuteWorkflow", mock.Anything, mock.Anything, workflows.WorkflowName, mock.Anything).
		Run(func(args mock.Arguments) {
			*opts = args.Get(1).(client.StartWorkflowOptions)
			*in = args.Get(3).(workflows.AgentInput)
		}).
		Return(run, nil).Once()
}

func TestRunStartsTheWorkflow(t *testing.T) {
	schemaFile := filepath.Join(t.TempDir(), "schema.json")
	require.NoError(t, os.WriteFile(schemaFile, []byte(`{"type": "object", "required": ["booking_id"]}`), 0o600))

	m, dial := fakeTemporal(t)
	var opts client.StartWorkflowOptions
	var in workflows.AgentInput
	expectStart(t, m, &opts, &in, nil)

	r := runCLI(t, dial, "run", "--agent", "travel", "--task", "Book NYC to LAX",
		"--input", `{ "from": "NYC" }`, "--output-schema", "@"+schemaFile)
	require.Equal(t, exitOK, r.code, r.stderr)

	require.Regexp(t, `^travel-\d{8}-\d{6}-[0-9a-f]{6}$`, opts.ID)
	require.Equal(t, workflows.TaskQueue, opts.TaskQueue)
	require.True(t, opts.WorkflowExecutionErrorWhenAlreadyStarted, "an id in use is an error, not a silent attach")
	agent, ok := opts.TypedSearchAttributes.GetKeyword(agentNameKey)
	require.True(t, ok, "AgentName is set at start")
	require.Equal(t, "travel", agent)

	require.Equal(t, "travel", in.Agent)
	require.Equal(t, "Book NYC to LAX", in.Task)
	require.JSONEq(t, `{"from":"NYC"}`, string(in.Input))
	require.Equal(t, map[string]any{"type": "object", "required": []any{"booking_id"}}, in.OutputSchema)

	require.Contains(t, r.stdout, "workflow id: "+opts.ID)
	require.Contains(t, r.stdout, "run id:      run-1")
	require.Contains(t, r.stdout, "unstuck status "+opts.ID)
	require.Contains(t, r.stdout, "unstuck trace "+opts.ID)
}

func TestRunJSONWithoutWaitPrintsIDs(t *testing.T) {
	m, dial := fakeTemporal(t)
	var opts client.StartWorkflowOptions
	var in workflows.AgentInput
	expectStart(t, m, &opts, &in, nil)

	r := runCLI(t, dial, "run", "--agent", "a", "--task", "t", "--id", "my-id", "--task-queue", "q2", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, "my-id", opts.ID)
	require.Equal(t, "q2", opts.TaskQueue)
	require.JSONEq(t, `{"workflow_id":"my-id","run_id":"run-1"}`, r.stdout)
}

func TestRunWait(t *testing.T) {
	report := workflows.AgentResult{
		Status: workflows.ResultStopped, Agent: "travel", Steps: 200, Generation: 1,
		Reason: "step ceiling reached", LastError: "HTTP 503",
	}
	completed := workflows.AgentResult{
		Status: workflows.ResultCompleted, Output: json.RawMessage(`{"booking_id":"B1"}`), Agent: "travel", Steps: 7,
		HandoffPath: []string{"orders", "refunds"},
	}
	tests := []struct {
		name       string
		json       bool
		get        func(ptr any) error
		code       int
		stdout     []string
		stdoutJSON any // when set, stdout after the start block is exactly this JSON
		stderr     []string
	}{
		{
			name: "completed",
			get: func(ptr any) error {
				*ptr.(*workflows.AgentResult) = completed
				return nil
			},
			code: exitOK,
			stdout: []string{
				"{\n  \"booking_id\": \"B1\"\n}\n",
				"completed: agent=travel steps=7 generation=0 handoffs=orders->refunds\n",
			},
		},
		{
			name: "completed --json",
			json: true,
			get: func(ptr any) error {
				*ptr.(*workflows.AgentResult) = completed
				return nil
			},
			code:       exitOK,
			stdoutJSON: completed,
			stderr:     []string{"started workflow", "completed: agent=travel steps=7"},
		},
		{
			name: "stopped",
			get: func(any) error {
				return temporal.NewApplicationError("stopped", signals.StoppedErrorType, report)
			},
			code:   exitStopped,
			stdout: []string{"agent stopped: step ceiling reached\n", "last error: HTTP 503\n", `"steps": 200`},
		},
		{
			name: "stopped --json",
			json: true,
			get: func(any) error {
				return temporal.NewApplicationError("stopped", signals.StoppedErrorType, report)
			},
			code:       exitStopped,
			stdoutJSON: report,
			stderr:     []string{"unstuck: agent stopped: step ceiling reached"},
		},
		{
			name: "stopped without details uses the message",
			get: func(any) error {
				return temporal.NewApplicationError("model unreachable", signals.StoppedErrorType)
			},
			code:   exitStopped,
			stdout: []string{"agent stopped: model unreachable\n"},
		},
		{
			name: "other failure",
			get: func(any) error {
				return temporal.NewApplicationError("boom", "SomethingElse")
			},
			code:   exitFailure,
			stderr: []string{"unstuck: run wf-1 failed: boom"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, dial := fakeTemporal(t)
			var opts client.StartWorkflowOptions
			var in workflows.AgentInput
			expectStart(t, m, &opts, &in, tt.get)
			args := []string{"run", "--agent", "travel", "--task", "t", "--id", "wf-1", "--wait"}
			if tt.json {
				args = append(args, "--json")
			}
			r := runCLI(t, dial, args...)
			require.Equal(t, tt.code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			for _, s := range tt.stdout {
				require.Contains(t, r.stdout, s)
			}
			for _, s := range tt.stderr {
				require.Contains(t, r.stderr, s)
			}
			if tt.stdoutJSON != nil {
				want, err := json.Marshal(tt.stdoutJSON)
				require.NoError(t, err)
				require.JSONEq(t, string(want), r.stdout)
			}
		})
	}
}

func TestRunExplainsStartErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"already running", serviceerror.NewWorkflowExecutionAlreadyStarted("exists", "", ""), "workflow id wf-1 is already running"},
		{"search attribute missing", serviceerror.NewInvalidArgument("search attribute AgentName is not defined"), "temporal operator search-attribute create --name AgentName --type Keyword"},
		{"anything else", errors.New("nope"), "start wf-1: nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, dial := fakeTemporal(t)
			m.On("ExecuteWorkflow", mock.Anything, mock.Anything, workflows.WorkflowName, mock.Anything).Return(nil, tt.err)
			r := runCLI(t, dial, "run", "--agent", "travel", "--task", "t", "--id", "wf-1")
			require.Equal(t, exitFailure, r.code)
			require.Contains(t, r.stderr, tt.want)
		})
	}
}

func TestWorkflowIDFormat(t *testing.T) {
	at := time.Date(2024, 1, 15, 4, 30, 5, 0, time.FixedZone("EST", -5*3600))
	id, err := workflowIDAt("travel", at, func(b []byte) (int, error) { return copy(b, []byte{0x1a, 0x2b, 0x3c}), nil })
	require.NoError(t, err)
	require.Equal(t, "travel-20240115-093005-1a2b3c", id, "the timestamp is UTC")

	a, err := newWorkflowID("x")
	require.NoError(t, err)
	b, err := newWorkflowID("x")
	require.NoError(t, err)
	require.NotEqual(t, a, b)
	require.True(t, regexp.MustCompile(`^x-\d{8}-\d{6}-[0-9a-f]{6}$`).MatchString(a), a)
	require.False(t, strings.Contains(a, " "))
}
