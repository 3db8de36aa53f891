package ladder

import (
	"slices"

	"github.com/unstuck-dev/unstuck/policies"
)

// What the rungs keep of their own effects; the runner carries the
// effects out on the run (workflows/escalation.go).

// Block forbids the exact calls of the loop (explore, free-form; repair)
// and answers them, for the rung's note.
func (e *Escape) Block(loop *policies.Loop) []Node {
	calls := e.LoopCalls(loop)
	for _, c := range calls {
		key := policies.BlockKey(c.Tool, c.Args, Volatile(e.spec, c.Tool)) // the model's call, whichever tool served it
		if !slices.Contains(e.s.Blocked, key) {
			e.s.Blocked = append(e.s.Blocked, key)
		}
	}
	return calls
}

// Explore sends a graph's walk away from the struggle's region until it
// makes real progress (struggle.go).
func (e *Escape) Explore() { e.s.Struggle.Explore() }

// RollBack goes back to just before the loop began: the loop's events
// are forgotten and, in a graph, the edge into the loop is excluded.
// It answers the loop's first event, the event before it, and the edge
// excluded ("" free-form).
func (e *Escape) RollBack(loop *policies.Loop) (first, before policies.EventRef, edge string) {
	begin := policies.LoopSpan(e.s.Events, *loop)
	first, before = e.s.Events[begin], e.s.Events[begin-1]
	e.s.Events = e.s.Events[:begin]
	if e.walk != nil {
		edge = policies.EdgeID(before.Where, first.Where)
		if !slices.Contains(*e.excluded, edge) {
			*e.excluded = append(*e.excluded, edge)
		}
	}
	return first, before, edge
}
