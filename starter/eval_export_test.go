package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
)

func TestEvalExportUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "export", "--to", "evals"}, "--query is required"},
		{[]string{"eval", "export", "--query", "WorkflowId = 'x'"}, "--to is required"},
		{[]string{"eval", "export", "--query", "WorkflowId = 'x'", "--to", "evals", "extra"}, "extra"},
	} {
		r := runCLI(t, noDial(t), tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want, tc.args)
	}
}

// listed is a run as the visibility list answers it.
func listed(id, typ string, status enums.WorkflowExecutionStatus) *workflowpb.WorkflowExecutionInfo {
	return &workflowpb.WorkflowExecutionInfo{
		Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: "r-" + id},
		Type:      &commonpb.WorkflowType{Name: typ},
		Status:    status,
	}
}

// The list is read page by page, --task-queue narrows the query, and runs
// that are not closed AgentWorkflow runs are skipped with a line each.
func TestEvalExportSkipsAndPages(t *testing.T) {
	m, dial := fakeTemporal(t)
	query := "(AgentName = 'travel') AND TaskQueue = 'agents'"
	m.On("ListWorkflow", anyCtx, mock.MatchedBy(func(r *workflowservice.ListWorkflowExecutionsRequest) bool {
		return r.Query == query && len(r.NextPageToken) == 0
	})).Return(&workflowservice.ListWorkflowExecutionsResponse{
		Executions:    []*workflowpb.WorkflowExecutionInfo{listed("trip-1", "AgentWorkflow", enums.WORKFLOW_EXECUTION_STATUS_RUNNING)},
		NextPageToken: []byte("p2"),
	}, nil).Once()
	m.On("ListWorkflow", anyCtx, mock.MatchedBy(func(r *workflowservice.ListWorkflowExecutionsRequest) bool {
		return string(r.NextPageToken) == "p2"
	})).Return(&workflowservice.ListWorkflowExecutionsResponse{
		Executions: []*workflowpb.WorkflowExecutionInfo{
			listed("other", "Cleanup", enums.WORKFLOW_EXECUTION_STATUS_COMPLETED),
			listed("trip-2", "AgentWorkflow", enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW),
		},
	}, nil).Once()
	dir := filepath.Join(t.TempDir(), "evals")
	r := runCLI(t, dial, "eval", "export", "--query", "AgentName = 'travel'", "--task-queue", "agents", "--to", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "skipped trip-1 (run r-trip-1): still running")
	require.Contains(t, r.stdout, "skipped other (run r-other): a Cleanup, not an AgentWorkflow")
	require.Contains(t, r.stdout, "skipped trip-2 (run r-trip-2): continued as new")
	require.Contains(t, r.stdout, "wrote 0 case(s) to "+dir)
	require.DirExists(t, dir)
}

func TestEvalExportNoRun(t *testing.T) {
	m, dial := fakeTemporal(t)
	m.On("ListWorkflow", anyCtx, mock.Anything).Return(&workflowservice.ListWorkflowExecutionsResponse{}, nil)
	r := runCLI(t, dial, "eval", "export", "--query", "WorkflowId = 'nope'", "--to", t.TempDir())
	require.Equal(t, exitFailure, r.code)
	require.Contains(t, r.stderr, `no run matches the query "WorkflowId = 'nope'"`)
}
