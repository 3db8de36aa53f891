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
// fine, a number) under stopOnUnencodable, as a step of the run's shape
// would.
func unencodableRun(ctx workflow.Context, fine bool) (res *AgentResult, err error) {
	r, err := newRunner(&Run{Spec: &config.Resolved{}, Progress: Progress{State: map[string]any{}}})
	if err != nil {
		return nil, err
	}
	defer r.stopOnUnencodable(ctx, &res, &err)
	value := math.NaN()
	if fine {
		value = 1
	}
	mustJSON(value)
	return &AgentResult{Status: ResultCompleted}, nil
}

// A value JSON cannot hold stops the run with a report naming it; any
// other panic stays a panic (the workflow task fails, for a fix to come).
func TestAnUnencodableValueStopsTheRunWithAReport(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(unencodableRun)
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

	require.Panics(t, func() {
		var r runner
		var res *AgentResult
		var err error
		defer r.stopOnUnencodable(nil, &res, &err)
		panic("another bug")
	})
}
