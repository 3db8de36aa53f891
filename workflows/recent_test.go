package workflows

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// recordMany records n loops and n escalations (every third a retry) in a
// run of its own and answers the run.
func recordMany(ctx workflow.Context, n int) (*Run, error) {
	ctx = withRelease(ctx)
	r := &runner{run: &Run{}}
	for i := range n {
		r.recordLoop(ctx, signals.Loop{At: fmt.Sprint("n", i), Kind: "cycle"})
		rung := policies.RungExplore
		if i%3 == 0 {
			rung = policies.RungRetry
		}
		r.recordEscalation(ctx, Escalation{At: fmt.Sprint("n", i), Action: rung})
	}
	return r.run, nil
}

func runRecordMany(t *testing.T, n int, before bool) *Run {
	env := (&testsuite.WorkflowTestSuite{}).NewTestWorkflowEnvironment()
	env.RegisterWorkflow(recordMany)
	if before {
		env.OnGetVersion(versionRelease, workflow.DefaultVersion, releaseAll).Return(workflow.DefaultVersion)
		env.OnGetVersion(versionBoundedLists, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	}
	env.ExecuteWorkflow(recordMany, n)
	require.NoError(t, env.GetWorkflowError())
	var run Run
	require.NoError(t, env.GetWorkflowResult(&run))
	return &run
}

func TestLoopsAndEscalationsKeepTheLatestWithCounts(t *testing.T) {
	run := runRecordMany(t, 200, false)
	require.Len(t, run.Loops, policies.KeepRecent)
	require.Len(t, run.Escalations, policies.KeepRecent)
	require.Equal(t, 200-policies.KeepRecent, run.LoopsDropped)
	require.Equal(t, 200-policies.KeepRecent, run.EscalationsDropped)
	require.Equal(t, "n199", run.Loops[len(run.Loops)-1].At, "the latest are kept")
	require.Equal(t, fmt.Sprint("n", 200-policies.KeepRecent), run.Escalations[0].At)
	retries := policies.RungCount(rungNames(run.Escalations), policies.RungRetry) + run.DroppedRungs[policies.RungRetry]
	require.Equal(t, 67, retries, "the retry count a backoff reads is the whole run's")
}

func TestShortListsAreNotTouched(t *testing.T) {
	run := runRecordMany(t, policies.KeepRecent, false)
	require.Len(t, run.Loops, policies.KeepRecent)
	require.Zero(t, run.LoopsDropped)
	require.Zero(t, run.EscalationsDropped)
	require.Nil(t, run.DroppedRungs)
}

func TestRunsBeforeBoundedListsKeepThemWhole(t *testing.T) {
	run := runRecordMany(t, 100, true)
	require.Len(t, run.Loops, 100)
	require.Len(t, run.Escalations, 100)
	require.Zero(t, run.LoopsDropped)
}

func TestKeptPrefixCutsBackToACheckpoint(t *testing.T) {
	list := []int{10, 11, 12, 13} // entries 10..13 of the run; 0..9 were dropped
	cases := []struct {
		name      string
		total     int
		kept      []int
		nowDroppd int
	}{
		{"all of them", 14, []int{10, 11, 12, 13}, 10},
		{"the first two kept", 12, []int{10, 11}, 10},
		{"exactly the dropped ones", 10, []int{}, 10},
		{"a checkpoint older than the kept entries", 6, []int{}, 6},
		{"the start", 0, []int{}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kept, dropped := keptPrefix(list, 10, tc.total)
			require.Equal(t, tc.kept, kept)
			require.Equal(t, tc.nowDroppd, dropped)
		})
	}
	kept, dropped := keptPrefix([]int{0, 1, 2}, 0, 2)
	require.Equal(t, []int{0, 1}, kept, "a run that dropped nothing cuts as before")
	require.Zero(t, dropped)
}
