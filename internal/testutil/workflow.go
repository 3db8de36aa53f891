package testutil

import (
	"testing"

	temporaltest "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// InWorkflow runs body in a test workflow, for code that reads the
// workflow's clock or waits in it; body asserts with assert, which may
// run off the test's goroutine.
func InWorkflow(t testing.TB, body func(ctx workflow.Context)) {
	t.Helper()
	var s temporaltest.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		body(ctx)
		return nil
	})
	if !env.IsWorkflowCompleted() {
		t.Fatal("the test workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
}
