package ladder

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

const gateBoundedLists = "bounded-lists"

// recorded is what recordMany leaves of a run.
type recorded struct {
	State              State
	Escalations        []Escalation
	EscalationsDropped int
	DroppedRungs       map[string]int
	ExcludedEdges      []string
}

// escapeOver is an Escape over rec, asking the gates of the workflow.
func escapeOver(rec *recorded, run Run) *Escape {
	return New(Parts{
		State: &rec.State, Escalations: &rec.Escalations, EscalationsDropped: &rec.EscalationsDropped,
		DroppedRungs: &rec.DroppedRungs, ExcludedEdges: &rec.ExcludedEdges, Run: run,
		Version: func(ctx workflow.Context, id string, max workflow.Version) workflow.Version {
			return workflow.GetVersion(ctx, id, workflow.DefaultVersion, max)
		},
		Gates: Gates{BoundedLists: gateBoundedLists, TurnLoops: "turn-loops"},
	})
}

// recordMany records n loops and n escalations (every third a retry) in a
// run of its own and answers the run.
func recordMany(ctx workflow.Context, n int) (*recorded, error) {
	rec := &recorded{}
	e := escapeOver(rec, nil)
	for i := range n {
		e.recordLoop(ctx, signals.Loop{At: fmt.Sprint("n", i), Kind: "cycle"})
		rung := policies.RungExplore
		if i%3 == 0 {
			rung = policies.RungRetry
		}
		e.RecordEscalation(ctx, Escalation{At: fmt.Sprint("n", i), Action: rung})
	}
	return rec, nil
}

func runRecordMany(t *testing.T, n int, before bool) *recorded {
	env := (&testsuite.WorkflowTestSuite{}).NewTestWorkflowEnvironment()
	env.RegisterWorkflow(recordMany)
	if before {
		env.OnGetVersion(gateBoundedLists, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	}
	env.ExecuteWorkflow(recordMany, n)
	require.NoError(t, env.GetWorkflowError())
	var rec recorded
	require.NoError(t, env.GetWorkflowResult(&rec))
	return &rec
}

func TestLoopsAndEscalationsKeepTheLatestWithCounts(t *testing.T) {
	rec := runRecordMany(t, 200, false)
	require.Len(t, rec.State.Loops, policies.KeepRecent)
	require.Len(t, rec.Escalations, policies.KeepRecent)
	require.Equal(t, 200-policies.KeepRecent, rec.State.LoopsDropped)
	require.Equal(t, 200-policies.KeepRecent, rec.EscalationsDropped)
	require.Equal(t, "n199", rec.State.Loops[len(rec.State.Loops)-1].At, "the latest are kept")
	require.Equal(t, fmt.Sprint("n", 200-policies.KeepRecent), rec.Escalations[0].At)
	retries := escapeOver(rec, nil).RetryAttempt()
	require.Equal(t, 67, retries, "the retry count a backoff reads is the whole run's")
	require.True(t, strings.HasPrefix(escapeOver(rec, nil).RungsTried(), fmt.Sprintf("%d earlier, then ", 200-policies.KeepRecent)))
}

func TestShortListsAreNotTouched(t *testing.T) {
	rec := runRecordMany(t, policies.KeepRecent, false)
	require.Len(t, rec.State.Loops, policies.KeepRecent)
	require.Zero(t, rec.State.LoopsDropped)
	require.Zero(t, rec.EscalationsDropped)
	require.Nil(t, rec.DroppedRungs)
}

func TestRunsBeforeBoundedListsKeepThemWhole(t *testing.T) {
	rec := runRecordMany(t, 100, true)
	require.Len(t, rec.State.Loops, 100)
	require.Len(t, rec.Escalations, 100)
	require.Zero(t, rec.State.LoopsDropped)
}
