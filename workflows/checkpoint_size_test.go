package workflows

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/edit"
)

// A checkpoint keeps the lengths of the run's escalations and loops, not
// copies: 64 checkpoints of a run with 200 loops no longer hold 64 copies
// of its lists. Restoring cuts the run's lists back to those lengths, and
// a checkpoint made before (with copies) restores as it did.
func TestCheckpointsKeepLengthsNotCopies(t *testing.T) {
	run := &Run{Spec: testSpec(), Progress: Progress{State: map[string]any{}}}
	r := &runner{run: run}
	r.shape = shapeOf(r)
	grow := func(n int) {
		for range n {
			i := len(run.Escalations)
			run.Escalations = append(run.Escalations, Escalation{At: fmt.Sprintf("e%d", i), Action: "retry", Why: "cycle loop of period 2 repeated 3 times"})
			run.Loops = append(run.Loops, signals.Loop{At: fmt.Sprintf("e%d", i), Kind: "cycle", Cycle: []string{"0ffb7e5a973b10be:ok", "4e129975715e822d:transient"}, Repeats: 3})
		}
	}
	node := func(id string) *Node {
		run.Nodes = append(run.Nodes, Node{Node: signals.Node{ID: id, Kind: signals.KindRequest, Status: signals.StatusRunning}})
		return &run.Nodes[len(run.Nodes)-1]
	}
	grow(100)
	node("n1")
	r.edit().Checkpoint("n1")
	grow(100)
	node("n2")
	r.edit().Checkpoint("n2")

	withCopies := len(mustJSON(edit.Checkpoint{State: run.LoopEscape, Escalations: run.Escalations}))
	t.Logf("a checkpoint of a run with 200 loops and escalations: %d bytes, %d with copies", len(run.node("n2").Checkpoint), withCopies)
	require.Less(t, len(run.node("n2").Checkpoint)*10, withCopies)

	r.edit().RestoreAt(run.node("n1"))
	require.Len(t, run.Escalations, 100)
	require.Len(t, run.Loops, 100)
	require.Equal(t, "e99", run.Escalations[99].At)
	require.Equal(t, "e99", run.Loops[99].At)

	// A checkpoint made before this change keeps copies: read as before.
	grow(50)
	old := run.node("n2")
	old.Checkpoint = mustJSON(edit.Checkpoint{State: LoopEscape{Loops: run.Loops[:120]}, Escalations: run.Escalations[:120]})
	r.edit().RestoreAt(old)
	require.Len(t, run.Escalations, 120)
	require.Len(t, run.Loops, 120)
}
