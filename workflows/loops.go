package workflows

import (
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/ladder"
)

// The loop detector, the breakers and the ladder are package ladder's:
// it owns their state (the run's LoopEscape, and the escalations and
// excluded edges it keeps), and the rules are in policies/. This file
// wires it to the run; escalation.go carries out the rung a loop calls
// for.

// escape is the run's loop escape, over the run's state as it is now.
func (r *runner) escape() *ladder.Escape {
	run := r.run
	return ladder.New(ladder.Parts{
		State:              &run.LoopEscape,
		Escalations:        &run.Escalations,
		EscalationsDropped: &run.EscalationsDropped,
		DroppedRungs:       &run.DroppedRungs,
		ExcludedEdges:      &run.ExcludedEdges,
		Spec:               run.Spec,
		Walk:               r.shape.loopScope(),
		Run:                loopRun{run},
		Version:            versionOf,
		Gates:              loopGates,
	})
}

// loopGates are the gates the loop escape asks (versions.go).
var loopGates = ladder.Gates{
	GraphProgress: versionGraphProgress,
	ExploreCycle:  versionExploreCycle,
	ExploreRegion: versionExploreRegion,
	StateHash:     versionStateHash,
	TimeWindow:    versionTimeWindow,
	RungsByClass:  versionRungsByClass,
	BoundedLists:  versionBoundedLists,
	TurnLoops:     versionTurnLoops,
}

// loopRun is what the loop escape reads of the run (ladder.Run).
type loopRun struct{ run *Run }

func (l loopRun) Node(id string) (ladder.Node, bool) {
	n := l.run.node(id)
	if n == nil {
		return ladder.Node{}, false
	}
	return ladder.Node{
		ID: n.ID, Call: n.Kind == signals.KindCall && n.Tool != "",
		Tool: n.AskedTool(), Args: n.Args, Failed: n.Status == signals.StatusFailed,
	}, true
}

func (l loopRun) StateJSON() []byte      { return mustJSON(l.run.State) }
func (l loopRun) Visits() map[string]int { return l.run.Visits }

// volatile is the tool's own volatile fields, left out of its calls'
// signatures (and blocklist keys) besides policies.DefaultVolatile.
func (r *runner) volatile(tool string) []string { return toolVolatile(r.run, tool) }

func toolVolatile(run *Run, tool string) []string { return ladder.Volatile(run.Spec, tool) }
