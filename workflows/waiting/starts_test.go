package waiting

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// A wait keeps the start it began with; a wait begun again after it was
// forgotten has a whole timeout.
func TestAWaitKeepsItsStart(t *testing.T) {
	env := (&testsuite.WorkflowTestSuite{}).NewTestWorkflowEnvironment()
	begun := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	env.SetStartTime(begun)
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		s := NewStarts()
		s.Keep("n2", begun.Add(-time.Hour))
		first := s.Started(ctx, "n3")
		if err := workflow.Sleep(ctx, time.Minute); err != nil {
			return err
		}
		switch {
		case !s.Started(ctx, "n2").Equal(begun.Add(-time.Hour)):
			return fmt.Errorf("n2 began again at %s", s.Started(ctx, "n2"))
		case !s.Started(ctx, "n3").Equal(first) || !s.Since("n3").Equal(first):
			return fmt.Errorf("n3 began again at %s", s.Started(ctx, "n3"))
		}
		s.Forget("n3")
		if again := s.Started(ctx, "n3"); !again.After(first) {
			return fmt.Errorf("n3, forgotten, kept its start %s", again)
		}
		return nil
	})
	require.NoError(t, env.GetWorkflowError())
}
