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

// A history whose second model call was recorded under another activity
// type stands for a build that changed what the run does: the replay
// fails and the line names the event and the command that differ.
func TestAChangedActivityIsNamedWithItsEvent(t *testing.T) {
	f, err := os.Open(recorded)
	require.NoError(t, err)
	hist, err := replay.ReadHistory(f)
	f.Close()
	require.NoError(t, err)
	require.NoError(t, replay.History(hist, nil), "the history as recorded replays")

	scheduled := hist.GetEvents()[15].GetActivityTaskScheduledEventAttributes()
	require.Equal(t, "CallModel", scheduled.GetActivityType().GetName(), "event 16 is the second model call")
	scheduled.ActivityType.Name = "CallModelV2"
	err = replay.History(hist, nil)
	require.Error(t, err)
	require.Equal(t, "non-determinism at event 16 (ActivityTaskScheduled CallModelV2): this build makes ScheduleActivityTask CallModel instead",
		replay.Explain(err, hist))
}

// All keeps the sources' order, and tells a bad input (another workflow
// type) from a run that did not replay.
func TestAllReportsEachSourceInOrder(t *testing.T) {
	whole, err := os.ReadFile(recorded)
	require.NoError(t, err)
	dir := t.TempDir()
	other := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(other, []byte(strings.Replace(string(whole), `"AgentWorkflow"`, `"OrderWorkflow"`, 1)), 0o644))
	changed := filepath.Join(dir, "changed.json")
	require.NoError(t, os.WriteFile(changed, []byte(strings.Replace(string(whole), `"CallModel"`, `"CallModelV2"`, 1)), 0o644))

	sources, err := replay.Files([]string{changed, other, recorded})
	require.NoError(t, err)
	var got []replay.Outcome
	replay.All(context.Background(), sources, 3, nil, func(o replay.Outcome) { got = append(got, o) })
	require.Len(t, got, 3)
	require.Equal(t, changed, got[0].Name)
	_, bad := replay.Bad(got[0].Err)
	require.False(t, bad)
	require.Contains(t, got[0].Why, "non-determinism at event 9 (ActivityTaskScheduled CallModelV2)")
	require.Equal(t, other, got[1].Name)
	_, bad = replay.Bad(got[1].Err)
	require.True(t, bad, "%v", got[1].Err)
	require.Equal(t, recorded, got[2].Name)
	require.NoError(t, got[2].Err)
}
