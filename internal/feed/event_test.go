package feed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

func node(id string, status signals.NodeStatus, at time.Time) signals.Node {
	return signals.Node{ID: id, Kind: signals.KindCall, Status: status, At: at}
}

func ids(events []Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Type+" "+e.ID)
	}
	return out
}

func TestNextOrdersByTimeThenNodeAndSaysThePhase(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Second)
	nodes := []signals.Node{node("n10", signals.StatusCompleted, t1), node("n9", signals.StatusAwaitingApproval, t1), node("n2", signals.StatusCompleted, t0)}
	events, c := Next(Cursor{}, nodes, signals.PhaseAwaitingApproval)
	require.Equal(t, []string{
		"node " + ID(t0, "n2", "completed"),
		"node " + ID(t1, "n9", "awaiting_approval"),
		"approval " + ID(t1, "n9", "approval"),
		"node " + ID(t1, "n10", "completed"),
		"phase " + ID(t1, phaseKey, "awaiting_approval"),
	}, ids(events), "by time, then node number (n9 before n10), the phase last")
	require.Equal(t, Cursor{At: t1, Node: phaseKey, Phase: signals.PhaseAwaitingApproval}, c)

	// Read again with nothing new: nothing; a node settled later: only it.
	again, c2 := Next(c, nodes, signals.PhaseAwaitingApproval)
	require.Empty(t, again)
	t2 := t1.Add(time.Second)
	more, _ := Next(c2, []signals.Node{node("n9", signals.StatusCompleted, t2)}, signals.PhaseRunning)
	require.Equal(t, []string{"node " + ID(t2, "n9", "completed"), "phase " + ID(t2, phaseKey, "running")}, ids(more))
}

// A follower resuming after an event's id is given every later event once.
func TestResumingAfterAnIDGivesTheRestOnce(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)
	var nodes []signals.Node
	for i := 1; i <= 6; i++ {
		nodes = append(nodes, node("n"+string(rune('0'+i)), signals.StatusCompleted, t0.Add(time.Duration(i/2)*time.Second)))
	}
	all, _ := Next(Cursor{}, nodes, signals.PhaseRunning)
	for i, e := range all {
		c, err := ParseID(e.ID)
		require.NoError(t, err)
		rest, _ := Next(c, nodes, c.Phase)
		var want []Event
		for _, later := range all[i+1:] {
			if later.Type != TypePhase {
				want = append(want, later)
			}
		}
		var got []Event
		for _, r := range rest {
			if r.Type != TypePhase {
				got = append(got, r)
			}
		}
		require.Equal(t, ids(want), ids(got), "after %s", e.ID)
	}
}

func TestParseIDRefusesWhatIsNotAnEventID(t *testing.T) {
	for _, bad := range []string{"", "n5", "yesterday/n5/completed", "2026-11-29T04:00:00Z/x5/completed", "2026-11-29T04:00:00Z/n/completed"} {
		_, err := ParseID(bad)
		require.Error(t, err, bad)
	}
	c, err := ParseID(ID(time.Date(2026, 11, 29, 4, 0, 0, 5, time.UTC), phaseKey, TypeEnd))
	require.NoError(t, err)
	require.True(t, c.Ended, "after the end, nothing")
}
