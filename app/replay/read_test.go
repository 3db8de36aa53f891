package replay_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/app/replay"
)

// A recorded history as the project keeps it and as `temporal workflow
// show -o json` prints it.
const recorded = "../../testsuite/histories/v0.2/budget_cost_stop.json"

func TestReadHistoryReadsARecordedHistory(t *testing.T) {
	f, err := os.Open(recorded)
	require.NoError(t, err)
	defer f.Close()
	hist, err := replay.ReadHistory(f)
	require.NoError(t, err)
	require.Greater(t, len(hist.GetEvents()), 3)
	require.NoError(t, replay.Check(hist))
}

func TestBadInputIsNamed(t *testing.T) {
	whole, err := os.ReadFile(recorded)
	require.NoError(t, err)
	for name, tc := range map[string]struct{ data, why string }{
		"not JSON":       {"hello", "not a workflow history"},
		"other JSON":     {`{"name": "travel"}`, `a history is JSON with "events"`},
		"no events":      {`{"events": []}`, "it has no events"},
		"other type":     {strings.Replace(string(whole), `"AgentWorkflow"`, `"OrderWorkflow"`, 1), `workflow type "OrderWorkflow"; this build replays AgentWorkflow`},
		"not from start": {`{"events": [{"eventId": "4", "eventType": "EVENT_TYPE_WORKFLOW_TASK_COMPLETED", "workflowTaskCompletedEventAttributes": {}}]}`, "its first event is WorkflowTaskCompleted (event 4)"},
	} {
		t.Run(name, func(t *testing.T) {
			hist, err := replay.ReadHistory(strings.NewReader(tc.data))
			if err == nil {
				err = replay.Check(hist)
			}
			bad, ok := replay.Bad(err)
			require.True(t, ok, "%v", err)
			require.Contains(t, bad.Why, tc.why)
		})
	}
}

func TestFilesWalksDirectoriesForJSON(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "v1"), 0o755))
	for _, f := range []string{"b.json", "v1/a.json", "notes.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644))
	}
	sources, err := replay.Files([]string{dir, recorded})
	require.NoError(t, err)
	var names []string
	for _, s := range sources {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{filepath.Join(dir, "b.json"), filepath.Join(dir, "v1/a.json"), recorded}, names)

	_, err = sources[0].Load(context.Background())
	_, bad := replay.Bad(err)
	require.True(t, bad, "an empty object is no history: %v", err)

	_, err = replay.Files([]string{filepath.Join(dir, "v1", "missing.json")})
	require.Error(t, err)
	empty := t.TempDir()
	_, err = replay.Files([]string{empty})
	require.ErrorContains(t, err, "no .json history files")
}
