package workflows

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// unencodableRun builds a runner and has mustJSON meet a NaN (or, with
// fine, a number) under the main coroutine's guard, as a step of the
// run's shape would.
func unencodableRun(ctx workflow.Context, fine bool) (res *AgentResult, err error) {
	r, err := newRunner(&Run{Spec: &config.Resolved{}, Progress: Progress{State: map[string]any{}}})
	if err != nil {
		return nil, err
	}
	_, guarded := r.guardMain(ctx)
	defer guarded(&res, &err)
	defer r.guard.recoverMain(ctx)
	value := math.NaN()
	if fine {
		value = 1
	}
	mustJSON(value)
	return &AgentResult{Status: ResultCompleted}, nil
}

// A value JSON cannot hold stops the run with a report naming it, as it
// did before the guard: no version is asked (guard_test.go has the other
// panics).
func TestAnUnencodableValueStopsTheRunWithAReport(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(unencodableRun)
	env.OnGetVersion(versionPanicStop, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	env.ExecuteWorkflow(unencodableRun, false)
	err := env.GetWorkflowError()
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	require.Equal(t, signals.StoppedErrorType, app.Type())
	var rep AgentResult
	require.NoError(t, app.Details(&rep))
	require.Equal(t, "a value of the run (float64) could not be encoded as JSON: json: unsupported value: NaN", rep.Reason)

	env = s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(unencodableRun)
	env.ExecuteWorkflow(unencodableRun, true)
	require.NoError(t, env.GetWorkflowError(), "an encodable value goes on")
}
