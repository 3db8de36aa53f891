package ladder

import (
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// A graph run's struggle (policies.Struggle): the loops it met since it
// last made real progress. Loops over overlapping nodes climb one ladder;
// after explore the walk keeps away from their nodes until it reaches a
// node it had not visited. This file keeps the struggle (bookkeeping, the
// same under every version) and lets it decide only where version
// explore-region says so; the version is asked only where the rules
// decide otherwise than those before them, so runs they agree on record
// no marker.

// regionRules says whether the run follows version explore-region.
func (e *Escape) regionRules(ctx workflow.Context) bool {
	return e.on(ctx, e.gates.ExploreRegion)
}

// afterEvent is what an event that completed no loop does to the ladder.
// Free-form, and before explore-region, progress off the last loop
// (progress) sends it back to its bottom rung. In a graph with
// explore-region, only real progress does (a node not visited before,
// reached from outside the struggle's region; the previous event's node
// is where the walk came from); a success between two loops of one
// struggle does not (A <-> B while B fails, A -> B -> C -> A while it
// succeeds).
func (e *Escape) afterEvent(ctx workflow.Context, where, nodeID string, ev policies.LoopEvent) {
	old := e.progress(ctx, where, nodeID, ev)
	if e.walk == nil {
		if old {
			e.ladder().Reset()
		}
		return
	}
	from := ""
	if n := len(e.s.Events); n >= 2 {
		from = e.s.Events[n-2].Where
	}
	real := e.s.Struggle.RealProgress(where, from, e.run.Visits()[where]-1, false)
	if real {
		e.s.Struggle.End()
	}
	reset := old
	if real != old && climbed(e.ladder()) && e.regionRules(ctx) {
		reset = real
	}
	if reset {
		e.ladder().Reset()
	}
}

// joinStruggle takes the loop just seen (its graph nodes are
// LastCycleNodes) into the struggle. With explore-region, a loop sharing
// no node with the struggle starts a new one, and the ladder goes back to
// its bottom rung; before, the ladder was reset by progress alone.
func (e *Escape) joinStruggle(ctx workflow.Context) {
	if e.s.Struggle.Join(e.s.LastCycleNodes, e.detector().Seen) && climbed(e.ladder()) && e.regionRules(ctx) {
		e.ladder().Reset()
	}
}

// stalled reports a loop of kind stalled when the struggle went a whole
// loop window since its latest loop without real progress
// (policies.Struggle.Stalled): the walk went round its region without
// repeating one cycle exactly. The loop's period is those events, as many
// as the run still keeps; its cycle, their signatures. Like any report,
// it makes the detector and the time window count afresh.
func (e *Escape) stalled(ctx workflow.Context) *policies.Loop {
	d := e.detector()
	if !e.s.Struggle.Stalled(d.Seen, e.spec.Agent.Policies.Loop.Window) || !e.regionRules(ctx) {
		return nil
	}
	period := max(min(d.Seen-e.s.Struggle.Since, len(e.s.Events)), 1)
	loop := &policies.Loop{Kind: policies.LoopStalled, Period: period, Repeats: 1, At: d.Seen - 1, Cycle: d.Last(period)}
	d.Restart()
	if e.s.VisitWindow != nil {
		e.s.VisitWindow.Reset()
	}
	return loop
}

// AwayFrom is the walk's next node after `at` while explore has sent it
// away from the struggle's region and its usual edge (usual, from
// NextEdge) leads back into it: an edge whose condition holds and whose
// target is outside the region (policies.AwayEdge). ok is false when the
// walk takes its usual edge: it does not lead back (the user's routing
// stands: `C -> E when: state.done` is not passed over for a less
// visited node), no edge leads out, an error of NextEdge (a condition it
// could not evaluate stands; with no edge that applies, AwayEdge has none
// either), or a run before explore-region.
func (e *Escape) AwayFrom(ctx workflow.Context, at, usual string, usualErr error, holds func(int, config.GraphEdge) (bool, error)) (string, bool) {
	s := e.s.Struggle
	if !s.Away || usualErr != nil || !slices.Contains(s.Region, usual) {
		return "", false // the usual edge stands when it does not lead back
	}
	to, ok := policies.AwayEdge(at, e.walk.Edges, *e.excluded, s.Region, e.run.Visits(), holds)
	if !ok || to == usual || !e.regionRules(ctx) {
		return "", false
	}
	return to, true
}
