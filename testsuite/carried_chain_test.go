package testsuite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// countingRun is a finished run that continued as new at least once (the
// dev server suggests it every 150 events): its latest run carries state.
func countingRun(t *testing.T) (*stack, client.WorkflowRun) {
	t.Helper()
	cfg := `
model: { base_url: "{{MODEL}}", name: counter }
tools:
  - { name: echo, builtin: echo, parameters: { type: object } }
agents:
  - { name: counter, instructions: Count., tools: [echo], policies: { max_steps: 100 } }
`
	counter := func(req openaiRequest) scriptedmodel.Turn {
		if n := scriptedmodel.AssistantTurns(req); n < 30 {
			return scriptedmodel.CallTurn("echo", map[string]any{"i": n})
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"done": true})
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"counter": counter})
	run := s.start(workflows.AgentInput{Agent: "counter", Task: "count"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.GreaterOrEqual(t, res.Generation, 1)
	return s, s.client.GetWorkflow(context.Background(), run.GetID(), "")
}

// An operator resets a continued run to its first workflow task: the reset
// run is a copy of the one the previous run continued into, and its carried
// state is accepted; the run completes again.
func TestAResetContinuedRunIsAccepted(t *testing.T) {
	t.Parallel()
	s, latest := countingRun(t)
	resp, err := s.client.ResetWorkflowExecution(context.Background(), &workflowservice.ResetWorkflowExecutionRequest{
		Namespace: "default", WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: latest.GetID(), RunId: latest.GetRunID()},
		Reason: "operator", WorkflowTaskFinishEventId: 4, RequestId: fmt.Sprint(time.Now().UnixNano()),
	})
	require.NoError(t, err)
	res, err := s.result(s.client.GetWorkflow(context.Background(), latest.GetID(), resp.GetRunId()))
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))
}

// A workflow of another type continues as new into AgentWorkflow with
// carried state it rewrote: refused, since only the engine's own run may.
func TestAForeignContinueAsNewIsRefused(t *testing.T) {
	t.Parallel()
	s, latest := countingRun(t)
	hist := s.client.GetWorkflowHistory(context.Background(), latest.GetID(), latest.GetRunID(), false, 0)
	first, err := hist.Next()
	require.NoError(t, err)
	var in map[string]any
	require.NoError(t, json.Unmarshal(first.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()[0].GetData(), &in))
	in["continued"].(map[string]any)["spec"].(map[string]any)["agent"].(map[string]any)["instructions"] = "FORGED"
	forged, err := json.Marshal(in)
	require.NoError(t, err)

	evilQueue := s.queue + "-foreign"
	w := worker.New(serverClient, evilQueue, workerOptions())
	w.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		ctx = workflow.WithWorkflowTaskQueue(ctx, s.queue)
		return workflow.NewContinueAsNewError(ctx, workflows.WorkflowName, json.RawMessage(forged))
	}, workflow.RegisterOptions{Name: "Foreign"})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	run, err := serverClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
		ID: fmt.Sprintf("foreign-%d", time.Now().UnixNano()), TaskQueue: evilQueue, WorkflowExecutionTimeout: time.Minute,
	}, "Foreign")
	require.NoError(t, err)
	_, err = s.result(run)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "want BadInput, got %v", err)
	require.Equal(t, workflows.BadInputError, app.Type())
	require.Contains(t, app.Message(), "is a Foreign, not a AgentWorkflow")
}
