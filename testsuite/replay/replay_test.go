package replay_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/replay"
	"github.com/unstuck-dev/unstuck/internal/testutil"
)

// Every recorded history must replay against the current workflow code: a
// change that would break running workflows fails here (version it with
// workflow.GetVersion instead). Record new ones with `make histories`.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "testsuite/histories has no recorded histories")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
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
