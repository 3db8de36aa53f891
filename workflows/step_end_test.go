package workflows

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// endWithAnEditWaiting ends a step of a run (a graph's, with graph) that
// was cancelled with an edit waiting, and answers how the step ended.
func endWithAnEditWaiting(ctx workflow.Context, graph bool) (string, error) {
	spec := &config.Resolved{}
	if graph {
		spec.Agent.Graph = &config.Graph{}
	}
	r, err := newRunner(&Run{Spec: spec})
	if err != nil {
		return "", err
	}
	live(r.life.Interrupt(life.Edit))
	cctx, cancel := workflow.WithCancel(ctx)
	cancel()
	ended, err := r.engine().endOfStep(cctx, stepWaits{}, nil)
	var canceled *temporal.CanceledError
	switch {
	case !ended:
		return "went on", nil
	case errors.Is(err, errInterrupted):
		return "for the edit", nil
	case errors.As(err, &canceled):
		return "cancelled", nil
	}
	return "", err
}

func endingWithAnEditWaiting(t *testing.T, graph bool, before ...string) string {
	env := (&testsuite.WorkflowTestSuite{}).NewTestWorkflowEnvironment()
	env.RegisterWorkflow(endWithAnEditWaiting)
	for _, id := range before {
		env.OnGetVersion(id, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	}
	env.ExecuteWorkflow(endWithAnEditWaiting, graph)
	require.NoError(t, env.GetWorkflowError())
	var how string
	require.NoError(t, env.GetWorkflowResult(&how))
	return how
}

// A step that ends with the run cancelled and an edit waiting ends
// cancelled in both shapes; a free-form run recorded before cancel-first
// ended it for the edit.
func TestCancellationOutranksAWaitingEdit(t *testing.T) {
	require.Equal(t, "cancelled", endingWithAnEditWaiting(t, false))
	require.Equal(t, "cancelled", endingWithAnEditWaiting(t, true))
	require.Equal(t, "for the edit", endingWithAnEditWaiting(t, false, versionCancelFirst))
	require.Equal(t, "cancelled", endingWithAnEditWaiting(t, true, versionCancelFirst), "a graph asks nothing: it always did")
}
