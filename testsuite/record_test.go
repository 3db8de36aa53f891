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

	"github.com/unstuck-dev/unstuck/app/replay"
	"github.com/unstuck-dev/unstuck/internal/testutil"
)

// recordAndReplay replays a finished run's live history against this code
// and, with UNSTUCK_RECORD_HISTORIES=1, saves it as
// histories/<release>/<name>.json (replay.Recording).
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
	// replay.History replays a copy, so the file holds what the server recorded.
	require.NoError(t, replay.History(hist, testutil.QuietLogger()), "the fresh history of %s must replay", name)

	if os.Getenv("UNSTUCK_RECORD_HISTORIES") != "1" {
		return
	}
	data, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
	require.NoError(t, err)
	path := filepath.Join(repoRoot, "testsuite", "histories", replay.Recording, name+".json")
	if _, err := os.Stat(path); err == nil {
		t.Logf("histories/%s/%s.json is kept as recorded (histories only grow)", replay.Recording, name)
		return
	}
	require.NoError(t, os.WriteFile(path, append(data, '\n'), 0o644))
	t.Logf("recorded %s (%d events)", path, len(hist.Events))
}
