package workflows

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// releaseProbe starts as AgentWorkflow does (withRelease) and answers what
// versionOf gives for each change id, in the workflow and in an update
// handler.
func releaseProbe(ctx workflow.Context, ids []string) ([]workflow.Version, error) {
	ctx = withRelease(ctx)
	var got []workflow.Version
	for _, id := range ids {
		got = append(got, versionOf(ctx, id, 1))
	}
	inRun := sameRelease(ctx)
	var fromHandler workflow.Version = -2
	if err := workflow.SetUpdateHandler(ctx, "probe", func(hctx workflow.Context) error {
		fromHandler = versionOf(inRun(hctx), versionHandoff, 1)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := workflow.Await(ctx, func() bool { return fromHandler != -2 }); err != nil {
		return nil, err
	}
	return append(got, fromHandler), nil
}

// probeVersions runs releaseProbe and answers its versions and the change
// ids it asked GetVersion for.
func probeVersions(t *testing.T, release workflow.Version, ids ...string) ([]workflow.Version, []string) {
	env := (&testsuite.WorkflowTestSuite{}).NewTestWorkflowEnvironment()
	env.RegisterWorkflow(releaseProbe)
	var asked []string
	env.OnGetVersion(versionRelease, workflow.DefaultVersion, releaseAll).Return(release)
	env.OnGetVersion(mock.Anything, workflow.DefaultVersion, 1).Run(func(a mock.Arguments) {
		asked = append(asked, a.String(0))
	}).Return(workflow.Version(1))
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow("probe", "u1", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { t.Fatal(err) }, OnAccept: func() {}, OnComplete: func(any, error) {},
		})
	}, 0)
	env.ExecuteWorkflow(releaseProbe, ids)
	require.NoError(t, env.GetWorkflowError())
	var got []workflow.Version
	require.NoError(t, env.GetWorkflowResult(&got))
	return got, asked
}

// A run of this release takes the release's changes as made, at their
// versions, in the workflow and in an update handler, and asks none.
func TestReleaseRunTakesItsChangesWithoutAsking(t *testing.T) {
	got, asked := probeVersions(t, releaseAll, versionStreamCalls, versionWorkerBreaker, versionModelHeartbeat, versionLocalResolve, versionGraphWaits)
	require.Equal(t, []workflow.Version{1, 1, 1, 1, 1, 1}, got)
	require.Empty(t, asked)
}

// A change made after the release (an id not in releaseChanges) is asked
// on its own even by a run of the release: a later worker continuing the
// run must not take it as made.
func TestReleaseRunAsksALaterChange(t *testing.T) {
	_, asked := probeVersions(t, releaseAll, "a-later-change")
	require.Equal(t, []string{"a-later-change"}, asked)
}

// A run recorded before versionRelease existed asks each change.
func TestRunBeforeTheReleaseAsksEachChange(t *testing.T) {
	_, asked := probeVersions(t, workflow.DefaultVersion, versionStreamCalls, versionToolQueues)
	require.Equal(t, []string{versionStreamCalls, versionToolQueues, versionHandoff}, asked)
}

// A release's changes are fixed: a run started on it may be continued by
// any later worker, so nothing may join them (a new change gets its own
// id, asked on its own) and none may change its version. A change no
// supported release can still be without is retired: it leaves the list,
// and nothing asks it (docs/deploying.md, "Release line").
func TestReleaseChangesAreFixed(t *testing.T) {
	fixed := map[workflow.Version][]string{
		1: {
			"answer-pending", "explore-cycle", "graph-progress", "handing-over", "handoff",
			"model-heartbeat", "relative-dates", "repair-values", "rungs-by-class", "stable-signatures",
			"state-hash", "stream-calls", "time-window", "tool-queue-wait", "tool-queues",
			"whole-arguments", "worker-breaker",
		},
		2: {
			"archive-trace", "bounded-lists", "budget", "budget-reply-bound", "budget-wait",
			"cancel-first", "context-clear", "cut-off-repair", "explore-region", "fallback-cooldown",
			"fork-archived", "fork-archived-spend", "graph-no-answer", "graph-waits", "handoff-flat",
			"handoff-loads", "handoff-refusals", "local-resolve", "local-tools", "longer-reply",
			"model-fallback", "no-answer-loop", "phase-shown", "repair-spend", "rung-waits",
			"summary-after-raise", "waiting-continue",
		},
	}
	require.Equal(t, workflow.Version(len(fixed)), releaseAll, "a new release lists its changes here")
	for release, want := range fixed {
		var ids []string
		for id, c := range releaseChanges {
			if c.release == release {
				ids = append(ids, id)
				require.Equal(t, workflow.Version(1), c.version, id)
			}
		}
		slices.Sort(ids)
		require.Equal(t, want, ids, "release %d", release)
	}
}

// A run of release 1, continued by this worker, takes release 1's changes
// as made and asks each change of release 2 on its own: its earlier part
// may have run without them.
func TestReleaseOneRunAsksTheChangesOfReleaseTwo(t *testing.T) {
	got, asked := probeVersions(t, 1, versionStreamCalls, versionLocalTools, versionGraphWaits)
	require.Equal(t, []workflow.Version{1, 1, 1, 1}, got)
	require.Equal(t, []string{versionLocalTools, versionGraphWaits}, asked)
}
