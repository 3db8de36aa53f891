package replay_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/app/replay"
	"github.com/unstuck-dev/unstuck/internal/testutil"
)

// Every recorded history of a supported release must replay against the
// current workflow code: a change that would break running workflows
// fails here (version it with workflow.GetVersion instead). Record new
// ones with `make histories`.
func TestReplayRecordedHistories(t *testing.T) {
	for _, release := range replay.Supported {
		files, err := filepath.Glob(filepath.Join("..", "histories", release, "*.json"))
		require.NoError(t, err)
		require.NotEmpty(t, files, "testsuite/histories/%s has no recorded histories", release)
		for _, f := range files {
			t.Run(release+"/"+filepath.Base(f), func(t *testing.T) {
				t.Parallel()
				file, err := os.Open(f)
				require.NoError(t, err)
				defer file.Close()
				hist, err := client.HistoryFromJSON(file, client.HistoryJSONOptions{})
				require.NoError(t, err)
				require.NoError(t, replay.History(hist, testutil.QuietLogger()))
			})
		}
	}
}

// Every history is kept under its release: a supported one (replayed),
// or retired (kept as recorded, never replayed).
func TestHistoriesAreKeptByRelease(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("..", "histories"))
	require.NoError(t, err)
	for _, e := range entries {
		require.True(t, e.IsDir(), "testsuite/histories/%s: a history belongs in its release's folder", e.Name())
		require.True(t, slices.Contains(replay.Supported, e.Name()) || e.Name() == replay.Retired,
			"testsuite/histories/%s is neither a supported release (%v) nor %s", e.Name(), replay.Supported, replay.Retired)
	}
	require.Contains(t, replay.Supported, replay.Recording, "new histories are recorded for a supported release")
}
