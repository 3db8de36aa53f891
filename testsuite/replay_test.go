package testsuite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/internal/app"
)

// Every recorded history must replay against the current workflow code: a
// change that would break running workflows fails here (version it with
// workflow.GetVersion instead). Record new ones with `make histories`.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot, "testsuite", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "testsuite/histories has no recorded histories")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			app.RegisterWorkflow(r)
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), f))
		})
	}
}

// recordAndReplay replays a finished run's live history against this code
// and, with UNSTUCK_RECORD_HISTORIES=1, saves it as histories/<name>.json.
func recordAndReplay(t *testing.T, run client.WorkflowRun, name string) {
	t.Helper()
	ctx := context.Background()
	hist := &historypb.History{}
	iter := devClient.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, 0)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		hist.Events = append(hist.Events, ev)
	}
	r := worker.NewWorkflowReplayer()
	app.RegisterWorkflow(r)
	require.NoError(t, r.ReplayWorkflowHistory(quietLogger(), hist), "the fresh history of %s must replay", name)

	if os.Getenv("UNSTUCK_RECORD_HISTORIES") != "1" {
		return
	}
	data, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
	require.NoError(t, err)
	path := filepath.Join(repoRoot, "testsuite", "histories", name+".json")
	if _, err := os.Stat(path); err == nil {
		t.Logf("histories/%s.json is kept as recorded (histories only grow)", name)
		return
	}
	require.NoError(t, os.WriteFile(path, append(data, '\n'), 0o644))
	t.Logf("recorded %s (%d events)", path, len(hist.Events))
}
