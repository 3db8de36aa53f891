package trace

import (
	"encoding/json"
	"slices"

	"github.com/unstuck-dev/unstuck/signals"
)

// Checkpoint records cp, the run's loop escape and counters as they are,
// on node id as it begins, and drops the checkpoints past the latest keep
// and those of invalidated nodes (never edited, so never restored).
func (t *Trace) Checkpoint(id string, cp json.RawMessage, keep int) {
	n := t.Node(id)
	if n == nil {
		return
	}
	n.Checkpoint = cp
	kept := 0
	for i := len(t.Nodes) - 1; i >= 0; i-- {
		m := &t.Nodes[i]
		if len(m.Checkpoint) == 0 {
			continue
		}
		if m.Status == signals.StatusInvalidated {
			m.Checkpoint = nil
			continue
		}
		if kept++; kept > keep {
			// Older ones went the same way, and invalidated nodes give
			// theirs up when they are invalidated: the scan can stop.
			m.Checkpoint = nil
			return
		}
	}
}

// DropCheckpoints removes every checkpoint, saying if there were any.
func (t *Trace) DropCheckpoints() bool {
	dropped := false
	for i := range t.Nodes {
		if len(t.Nodes[i].Checkpoint) > 0 {
			t.Nodes[i].Checkpoint, dropped = nil, true
		}
	}
	return dropped
}

// Forked makes the trace a fork's from node id of its source: no write of
// the source's answers for the fork in the effect ledger, and what the
// source archived after the node is not the fork's.
func (t *Trace) Forked(id string) {
	for i := range t.Nodes {
		t.Nodes[i].Executed, t.Nodes[i].Ran, t.Nodes[i].CallKey = false, false, ""
	}
	if a := t.Archived; a != nil && Number(a.Last) > Number(id) {
		a.Last = id
		a.SpentAfter = slices.DeleteFunc(a.SpentAfter, func(n NodeSpend) bool { return Number(n.ID) > Number(id) })
	}
}
