package runmsg

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/mocks"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/signals"
)

func describedAs(m *mocks.Client, status enumspb.WorkflowExecutionStatus) {
	m.On("DescribeWorkflowExecution", mock.Anything, "wf", "").Return(&workflowservice.DescribeWorkflowExecutionResponse{
		WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{
			Execution: &commonpb.WorkflowExecution{WorkflowId: "wf", RunId: "r1"}, Status: status,
		},
	}, nil)
}

func resultIs(t *testing.T, m *mocks.Client, err error) {
	run := mocks.NewWorkflowRun(t)
	run.On("Get", mock.Anything, mock.Anything).Return(err)
	m.On("GetWorkflow", mock.Anything, "wf", "r1").Return(run)
}

func TestEndedSaysHowARunEnded(t *testing.T) {
	ctx := context.Background()
	t.Run("running", func(t *testing.T) {
		m := mocks.NewClient(t)
		describedAs(m, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING)
		_, ok := Ended(ctx, m, "wf", "")
		require.False(t, ok)
	})
	t.Run("failed at its start", func(t *testing.T) {
		m := mocks.NewClient(t)
		describedAs(m, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED)
		m.On("QueryWorkflow", mock.Anything, "wf", "r1", signals.QueryStatus).
			Return(nil, errors.New(signals.RunFailedToStart+`: unknown agent "concierg"`))
		how, ok := Ended(ctx, m, "wf", "")
		require.True(t, ok)
		require.Equal(t, `failed at its start: unknown agent "concierg"`, how)
	})
	t.Run("stopped with a report", func(t *testing.T) {
		m := mocks.NewClient(t)
		describedAs(m, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED)
		m.On("QueryWorkflow", mock.Anything, "wf", "r1", signals.QueryStatus).Return(statusAnswer{}, nil)
		resultIs(t, m, temporal.NewApplicationError("agent stopped: budget", signals.StoppedErrorType))
		how, _ := Ended(ctx, m, "wf", "")
		require.Equal(t, "failed: agent stopped: budget", how)
	})
	t.Run("completed", func(t *testing.T) {
		m := mocks.NewClient(t)
		describedAs(m, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED)
		how, _ := Ended(ctx, m, "wf", "")
		require.Equal(t, "completed", how)
	})
	t.Run("a message to a closed run", func(t *testing.T) {
		m := mocks.NewClient(t)
		describedAs(m, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED)
		refused := serviceerror.NewNotFound("workflow execution already completed")
		err := ClosedError(ctx, m, "wf", "", signals.Message, refused)
		require.EqualError(t, err, "run wf completed: it takes no message")
		var notFound *serviceerror.NotFound
		require.ErrorAs(t, err, &notFound, "the server's refusal is still there to ask for")
		other := errors.New(`message: "text" is empty`)
		require.Equal(t, other, ClosedError(ctx, m, "wf", "", signals.Message, other), "a refusal of a running run is as it came")
	})
}

// statusAnswer is a status query's answer of a run that started: {}.
type statusAnswer struct{}

func (statusAnswer) HasValue() bool    { return true }
func (statusAnswer) Get(ptr any) error { return json.Unmarshal([]byte(`{}`), ptr) }
