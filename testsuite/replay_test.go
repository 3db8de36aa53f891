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
			file, err := os.Open(f)
			require.NoError(t, err)
			defer file.Close()
			hist, err := client.HistoryFromJSON(file, client.HistoryJSONOptions{})
			require.NoError(t, err)
			require.NoError(t, replay(hist))
		})
	}
}

// replay replays a history against this code under the workflow id it
// was recorded with: a run that forks (edit with fork: true) names its
// child after its own id, which the replayer's default id ("ReplayId")
// would change. Histories from before the started event carried the id
// replay under the default.
func replay(hist *historypb.History) error {
	r := worker.NewWorkflowReplayer()
	app.RegisterWorkflow(r)
	var opts worker.ReplayWorkflowHistoryOptions
	if evs := hist.GetEvents(); len(evs) > 0 {
		opts.OriginalExecution.ID = evs[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowId()
	}
	return r.ReplayWorkflowHistoryWithOptions(quietLogger(), hist, opts)
}

// recordAndReplay replays a finished run's live history against this code
// and, with UNSTUCK_RECORD_HISTORIES=1, saves it as histories/<name>.json.
func recordAndReplay(t *testing.T, run client.WorkflowRun, name string) {
	t.Helper()
	ctx := context.Background()
	hist := &historypb.History{}
	iter := serverClient.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, 0)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		hist.Events = append(hist.Events, ev)
	}
	require.NoError(t, replay(hist), "the fresh history of %s must replay", name)

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
