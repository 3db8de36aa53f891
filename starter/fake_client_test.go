package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/mock"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"
)

// fakeTemporal returns a mocked Temporal client and a dialFunc handing it
// out, so commands run end to end without a server.
func fakeTemporal(t *testing.T) (*mocks.Client, dialFunc) {
	m := mocks.NewClient(t)
	m.On("Close").Return().Maybe()
	return m, func(context.Context, client.Options) (client.Client, error) { return m, nil }
}

// anyCtx matches the context argument of a mocked call.
var anyCtx = mock.Anything

// jsonValue is a query answer as the server would send it: JSON.
type jsonValue struct{ raw []byte }

func (v jsonValue) HasValue() bool { return len(v.raw) > 0 }
func (v jsonValue) Get(ptr any) error {
	return json.Unmarshal(v.raw, ptr)
}

func mustJSON(t *testing.T, v any) jsonValue {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return jsonValue{raw: b}
}

// expectClosed answers the describe of workflow id as a run that
// completed: what a message to it is told it ended as.
func expectClosed(m *mocks.Client, id string) {
	m.On("DescribeWorkflowExecution", anyCtx, id, "").Return(&workflowservice.DescribeWorkflowExecutionResponse{
		WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{
			Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: "r1"},
			Status:    enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED,
		},
	}, nil).Once()
}
