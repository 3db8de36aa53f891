package edit

import (
	"encoding/json"
	"slices"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/ladder"
	"github.com/unstuck-dev/unstuck/workflows/trace"
	"github.com/unstuck-dev/unstuck/workflows/walk"
)

// Checkpoint is what an edit restores of the run as it was when a request
// or a person's reply began (kept on its node, in the run's JSON).
type Checkpoint struct {
	ladder.State
	walk.Walk
	Step int `json:"step"`
	// Escalations and State.Loops only grow, and an edit cuts them back
	// to a checkpoint's: each is a prefix of the run's at any later node,
	// so a checkpoint keeps their lengths, not copies (64 copies of a long
	// run's lists grew the carried run with every loop). Checkpoints made
	// before keep the copies, and are read as before.
	EscalationsLen *int                `json:"escalations_len,omitempty"`
	LoopsLen       *int                `json:"loops_len,omitempty"`
	Escalations    []ladder.Escalation `json:"escalations,omitempty"`
	OutputFailures int                 `json:"output_failures"`
	LastError      string              `json:"last_error,omitempty"`
}

// MaxCheckpoints bounds the checkpoints a run keeps (on its latest request
// and human nodes), and so what they add to the carried run. An edit of an
// older node starts the loop escape afresh (the breakers stay as they are).
const MaxCheckpoints = 64

// Checkpoint records the loop escape and counters on node nodeID, which
// is beginning, and drops those past the bound and those of invalidated
// nodes (never edited, so never restored).
func (e *Edits) Checkpoint(nodeID string) {
	if e.tr.Node(nodeID) == nil {
		return
	}
	c := e.at
	// Counted from the run's first entry, dropped ones included
	// (ladder/record.go), so a checkpoint's length means the same after a drop.
	escalations, loops := len(*c.Escalations)+*c.EscalationsDropped, len(c.Escape.Loops)+c.Escape.LoopsDropped
	le := *c.Escape
	le.Loops = nil
	e.tr.Checkpoint(nodeID, e.host.JSON(Checkpoint{State: le, Walk: *c.Walk, Step: *c.Step, EscalationsLen: &escalations, LoopsLen: &loops,
		OutputFailures: *c.OutputFailures, LastError: *c.LastError}), MaxCheckpoints)
}

// RestoreAt puts back the loop escape and counters as they were at the
// edited node n: for the task, a fresh run; for a call, its request's.
func (e *Edits) RestoreAt(n *trace.Node) {
	c := e.at
	at := n
	if n.Kind == signals.KindCall && n.ModelCallID != "" {
		at = e.tr.Node(n.Parents[0]) // a graph node's call has its own
	}
	if n.Kind == signals.KindTask || at == nil {
		*c.Escape, *c.Step, *c.Escalations, *c.OutputFailures, *c.LastError = ladder.State{Loops: []signals.Loop{}}, 0, []ladder.Escalation{}, 0, ""
		*c.EscalationsDropped, *c.DroppedRungs = 0, nil
		*c.Walk = walk.Walk{Visits: map[string]int{}}
		return
	}
	var cp Checkpoint
	if len(at.Checkpoint) == 0 || json.Unmarshal(at.Checkpoint, &cp) != nil {
		e.restoreBeyond(at)
		return
	}
	if cp.LoopsLen != nil {
		cp.Loops, cp.LoopsDropped = keptPrefix(c.Escape.Loops, c.Escape.LoopsDropped, *cp.LoopsLen)
	}
	if cp.EscalationsLen != nil {
		cp.Escalations, *c.EscalationsDropped = keptPrefix(*c.Escalations, *c.EscalationsDropped, *cp.EscalationsLen)
	}
	*c.Escape, *c.Step, *c.OutputFailures, *c.LastError = cp.State, cp.Step, cp.OutputFailures, cp.LastError
	if e.host.Graph() {
		*c.Walk = cp.Walk
		if c.Walk.Visits == nil {
			c.Walk.Visits = map[string]int{}
		}
	}
	*c.Escalations = cp.Escalations
	if *c.Escalations == nil {
		*c.Escalations = []ladder.Escalation{}
	}
	if c.Escape.Loops == nil {
		c.Escape.Loops = []signals.Loop{}
	}
}

// restoreBeyond restores at a node beyond the checkpoints kept: the loop
// escape starts afresh, the breakers say what they know of the tools now.
// The escalations of the steps the edit invalidated (before this) are
// undone with them (a rollback never invalidates its escalations).
func (e *Edits) restoreBeyond(at *trace.Node) {
	c := e.at
	breakers := c.Escape.Breakers
	*c.Escape = ladder.State{Loops: []signals.Loop{}, Breakers: breakers}
	*c.Step = at.Step
	kept := []ladder.Escalation{}
	for _, esc := range *c.Escalations {
		if m := e.tr.Node(esc.At); m == nil || m.Status != signals.StatusInvalidated {
			kept = append(kept, esc)
		}
	}
	*c.Escalations = kept
}

// keptPrefix cuts a list that dropped its first dropped entries back to
// the first total entries of the run (a checkpoint's length): the kept
// ones among them, and how many of them are dropped. A run keeps its
// latest loops and escalations (policies.KeepRecent) and counts the older
// ones (ladder/record.go).
func keptPrefix[T any](list []T, dropped, total int) ([]T, int) {
	keep := min(max(total-dropped, 0), len(list))
	return slices.Clone(list[:keep]), max(total, 0) - keep
}
