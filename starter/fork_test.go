package main

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"

	"github.com/unstuck-dev/unstuck/workflows"
)

// expectSource answers the description of the fork's source with a
// workflow of type typ.
func expectSource(m *mocks.Client, source, typ string) {
	m.On("DescribeWorkflowExecution", anyCtx, source, "").Return(&workflowservice.DescribeWorkflowExecutionResponse{
		WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{Type: &commonpb.WorkflowType{Name: typ}},
	}, nil).Once()
}

func TestForkStartsTheWorkflow(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		want  string // the input, as JSON
		intro string
	}{
		{
			name:  "no edit",
			flags: []string{"--node", "n7"},
			want:  `{"agent":"","task":"","from":{"workflow_id":"travel-1","node_id":"n7"}}`,
			intro: "fork of travel-1 at node n7\n",
		},
		{
			name:  "args with audit",
			flags: []string{"--node", "n7", "--args", `{ "date": "2024-01-16" }`, "--by", "alice", "--reason", "next day"},
			want:  `{"agent":"","task":"","from":{"workflow_id":"travel-1","node_id":"n7","edit":{"args":{"date":"2024-01-16"},"by":"alice","reason":"next day"}}}`,
			intro: "fork of travel-1 at node n7, edited\n",
		},
		{
			name:  "output text",
			flags: []string{"--node", "n1", "--output-text", "Book NYC to SFO"},
			want:  `{"agent":"","task":"","from":{"workflow_id":"travel-1","node_id":"n1","edit":{"output":"Book NYC to SFO"}}}`,
			intro: "fork of travel-1 at node n1, edited\n",
		},
		{
			name:  "output JSON",
			flags: []string{"--node", "n9", "--output", `{"flights": []}`},
			want:  `{"agent":"","task":"","from":{"workflow_id":"travel-1","node_id":"n9","edit":{"output":{"flights":[]}}}}`,
			intro: "fork of travel-1 at node n9, edited\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, dial := fakeTemporal(t)
			expectSource(m, "travel-1", workflows.WorkflowName)
			var opts client.StartWorkflowOptions
			var in workflows.AgentInput
			expectStart(t, m, &opts, &in, nil)

			r := runCLI(t, dial, append([]string{"fork", "travel-1"}, tt.flags...)...)
			require.Equal(t, exitOK, r.code, r.stderr)

			require.JSONEq(t, tt.want, wireJSON(t, in))
			require.NotNil(t, in.From)
			require.Regexp(t, `^travel-1-fork-[0-9a-f]{6}$`, opts.ID)
			require.Equal(t, workflows.TaskQueue, opts.TaskQueue)
			require.True(t, opts.WorkflowExecutionErrorWhenAlreadyStarted)
			_, ok := opts.TypedSearchAttributes.GetKeyword(agentNameKey)
			require.False(t, ok, "the fork's agent is the source's: the workflow sets AgentName")

			require.Contains(t, r.stdout, tt.intro+"started workflow AgentWorkflow\n")
			require.Contains(t, r.stdout, "workflow id: "+opts.ID)
			require.Contains(t, r.stdout, "run id:      run-1")
			require.Contains(t, r.stdout, "unstuck trace "+opts.ID)
		})
	}
}

// The workflow decodes the input into AgentInput: the fork's edit reads
// back as an edit message's fields, without node_id or fork.
func TestForkInputDecodesAsAgentInput(t *testing.T) {
	m, dial := fakeTemporal(t)
	expectSource(m, "travel-1", workflows.WorkflowName)
	var opts client.StartWorkflowOptions
	var in workflows.AgentInput
	expectStart(t, m, &opts, &in, nil)
	r := runCLI(t, dial, "fork", "travel-1", "--node", "n7", "--args", `{"a":1}`)
	require.Equal(t, exitOK, r.code, r.stderr)

	var back workflows.AgentInput
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, in)), &back))
	require.Empty(t, back.Unknown)
	require.Equal(t, "travel-1", back.From.WorkflowID)
	require.Equal(t, "n7", back.From.NodeID)
	var edit map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(back.From.Edit, &edit))
	require.NotContains(t, edit, "node_id")
	require.NotContains(t, edit, "fork")
	require.JSONEq(t, `{"a":1}`, string(edit["args"]))
}

func TestForkIDQueueAndJSON(t *testing.T) {
	m, dial := fakeTemporal(t)
	expectSource(m, "travel-1", workflows.WorkflowName)
	var opts client.StartWorkflowOptions
	var in workflows.AgentInput
	expectStart(t, m, &opts, &in, nil)
	r := runCLI(t, dial, "fork", "travel-1", "--node", "n7", "--id", "trip-b", "--task-queue", "q2", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, "trip-b", opts.ID)
	require.Equal(t, "q2", opts.TaskQueue)
	require.JSONEq(t, `{"workflow_id":"trip-b","run_id":"run-1"}`, r.stdout)
}

func TestForkWait(t *testing.T) {
	completed := workflows.AgentResult{Status: workflows.ResultCompleted, Output: json.RawMessage(`{"booking_id":"B2"}`), Agent: "travel", Steps: 3}
	m, dial := fakeTemporal(t)
	expectSource(m, "travel-1", workflows.WorkflowName)
	var opts client.StartWorkflowOptions
	var in workflows.AgentInput
	expectStart(t, m, &opts, &in, func(ptr any) error {
		*ptr.(*workflows.AgentResult) = completed
		return nil
	})
	r := runCLI(t, dial, "fork", "travel-1", "--node", "n7", "--id", "trip-b", "--wait", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.JSONEq(t, wireJSON(t, completed), r.stdout)
	require.Contains(t, r.stderr, "fork of travel-1 at node n7\nstarted workflow AgentWorkflow")
	require.Contains(t, r.stderr, "completed: agent=travel steps=3")
}

// A source that is missing or not an agent run is told before anything
// starts: no ExecuteWorkflow is expected.
func TestForkChecksTheSource(t *testing.T) {
	tests := []struct {
		name   string
		answer func(m *mocks.Client)
		want   string
	}{
		{"not found", func(m *mocks.Client) {
			m.On("DescribeWorkflowExecution", anyCtx, "travel-x", "").Return(nil, serviceerror.NewNotFound("workflow not found")).Once()
		}, `unstuck: source workflow travel-x not found in namespace "ns1"`},
		{"another workflow type", func(m *mocks.Client) {
			expectSource(m, "travel-x", "BillingWorkflow")
		}, "unstuck: source workflow travel-x is a BillingWorkflow, not an AgentWorkflow run"},
		{"describe fails", func(m *mocks.Client) {
			m.On("DescribeWorkflowExecution", anyCtx, "travel-x", "").Return(nil, errors.New("permission denied")).Once()
		}, "unstuck: look up the source workflow travel-x: permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, dial := fakeTemporal(t)
			tt.answer(m)
			r := runCLI(t, dial, "--namespace", "ns1", "fork", "travel-x", "--node", "n7")
			require.Equal(t, exitFailure, r.code)
			require.Contains(t, r.stderr, tt.want)
			require.Empty(t, r.stdout)
			m.AssertNotCalled(t, "ExecuteWorkflow", mock.Anything, mock.Anything, mock.Anything, mock.Anything)
		})
	}
}

func TestForkExplainsStartErrors(t *testing.T) {
	m, dial := fakeTemporal(t)
	expectSource(m, "travel-1", workflows.WorkflowName)
	m.On("ExecuteWorkflow", mock.Anything, mock.Anything, workflows.WorkflowName, mock.Anything).
		Return(nil, serviceerror.NewWorkflowExecutionAlreadyStarted("exists", "", "")).Once()
	r := runCLI(t, dial, "fork", "travel-1", "--node", "n7", "--id", "trip-b")
	require.Equal(t, exitFailure, r.code)
	require.Contains(t, r.stderr, "workflow id trip-b is already running: pick another --id")
}

func TestForkUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no source", []string{"fork", "--node", "n1"}, "unstuck fork needs a WORKFLOW_ID"},
		{"no --node", []string{"fork", "travel-1"}, "--node is required: the id of the node to fork at (the ID column of `unstuck trace travel-1`)"},
		{"audit without an edit", []string{"fork", "travel-1", "--node", "n1", "--reason", "why"}, "--by and --reason describe an edit"},
		{"--output and --args", []string{"fork", "travel-1", "--node", "n1", "--output", "1", "--args", "{}"}, "--output and --args cannot be used together"},
		{"bad --args", []string{"fork", "travel-1", "--node", "n1", "--args", "[1]"}, "--args must be a JSON object"},
		{"bad --output", []string{"fork", "travel-1", "--node", "n1", "--output", "{"}, "--output is not valid JSON"},
		{"the source's own id", []string{"fork", "travel-1", "--node", "n1", "--id", "travel-1"}, "--id travel-1 is the source's own workflow id"},
		{"empty --task-queue", []string{"fork", "travel-1", "--node", "n1", "--task-queue", ""}, "--task-queue is empty"},
		{"no --signal on fork", []string{"fork", "travel-1", "--node", "n1", "--signal"}, "unknown flag: --signal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, noDial(t), tt.args...)
			require.Equal(t, exitUsage, r.code, "stderr: %s", r.stderr)
			require.Contains(t, r.stderr, tt.want)
			require.Contains(t, r.stderr, "Run 'unstuck fork --help' for usage.")
			require.Empty(t, r.stdout)
		})
	}
}

func TestForkIDFormat(t *testing.T) {
	id, err := forkIDWith("travel-1", func(b []byte) (int, error) { return copy(b, []byte{0x0a, 0xbc, 0xde}), nil })
	require.NoError(t, err)
	require.Equal(t, "travel-1-fork-0abcde", id)

	_, err = forkIDWith("travel-1", func([]byte) (int, error) { return 0, errors.New("no entropy") })
	require.EqualError(t, err, "generate a workflow id: no entropy")

	a, err := newForkID("x")
	require.NoError(t, err)
	b, err := newForkID("x")
	require.NoError(t, err)
	require.NotEqual(t, a, b)
}
