package workflows

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
func (r *runner) regionRules(ctx workflow.Context) bool {
	return versionOf(ctx, versionExploreRegion, 1) >= 1
}

// afterEvent is what an event that completed no loop does to the ladder.
// Free-form, and before explore-region, progress off the last loop
// (progress) sends it back to its bottom rung. In a graph with
// explore-region, only real progress does (a node not visited before,
// reached from outside the struggle's region; the previous event's node
// is where the walk came from); a success between two loops of one
// struggle does not (A <-> B while B fails, A -> B -> C -> A while it
// succeeds).
func (r *runner) afterEvent(ctx workflow.Context, where, nodeID string, ev policies.LoopEvent) {
	old := r.progress(ctx, where, nodeID, ev)
	if where == "" {
		if old {
			r.ladder().Reset()
		}
		return
	}
	from := ""
	if n := len(r.run.Events); n >= 2 {
		from = r.run.Events[n-2].Where
	}
	real := r.run.Struggle.RealProgress(where, from, r.run.Visits[where]-1, false)
	if real {
		r.run.Struggle.End()
	}
	reset := old
	if real != old && climbed(r.ladder()) && r.regionRules(ctx) {
		reset = real
	}
	if reset {
		r.ladder().Reset()
	}
}

// joinStruggle takes the loop just seen (its graph nodes are
// LastCycleNodes) into the struggle. With explore-region, a loop sharing
// no node with the struggle starts a new one, and the ladder goes back to
// its bottom rung; before, the ladder was reset by progress alone.
func (r *runner) joinStruggle(ctx workflow.Context) {
	if r.run.Struggle.Join(r.run.LastCycleNodes, r.detector().Seen) && climbed(r.ladder()) && r.regionRules(ctx) {
		r.ladder().Reset()
	}
}

// stalled reports a loop of kind stalled when the struggle went a whole
// loop window since its latest loop without real progress
// (policies.Struggle.Stalled): the walk went round its region without
// repeating one cycle exactly. The loop's period is those events, as many
// as the run still keeps; its cycle, their signatures. Like any report,
// it makes the detector and the time window count afresh.
func (r *runner) stalled(ctx workflow.Context) *policies.Loop {
	d := r.detector()
	if !r.run.Struggle.Stalled(d.Seen, r.run.Spec.Agent.Policies.Loop.Window) || !r.regionRules(ctx) {
		return nil
	}
	period := max(min(d.Seen-r.run.Struggle.Since, len(r.run.Events)), 1)
	loop := &policies.Loop{Kind: policies.LoopStalled, Period: period, Repeats: 1, At: d.Seen - 1, Cycle: d.Last(period)}
	d.Restart()
	if r.run.VisitWindow != nil {
		r.run.VisitWindow.Reset()
	}
	return loop
}

// climbed reports whether the ladder is above its bottom rung, so that a
// reset would change it.
func climbed(l *policies.Ladder) bool { return l.Next > 0 || l.Repaired }

// awayFrom is the walk's next node after `at` while explore has sent it
// away from the struggle's region and its usual edge (usual, from
// NextEdge) leads back into it: an edge whose condition holds and whose
// target is outside the region (policies.AwayEdge). ok is false when the
// walk takes its usual edge: it does not lead back (the user's routing
// stands: `C -> E when: state.done` is not passed over for a less
// visited node), no edge leads out, an error of NextEdge (a condition it
// could not evaluate stands; with no edge that applies, AwayEdge has none
// either), or a run before explore-region.
func (r *runner) awayFrom(ctx workflow.Context, at, usual string, usualErr error, holds func(int, config.GraphEdge) (bool, error)) (string, bool) {
	s := r.run.Struggle
	if !s.Away || usualErr != nil || !slices.Contains(s.Region, usual) {
		return "", false // the usual edge stands when it does not lead back
	}
	to, ok := policies.AwayEdge(at, r.run.Spec.Agent.Graph.Edges, r.run.ExcludedEdges, s.Region, r.run.Visits, holds)
	if !ok || to == usual || !r.regionRules(ctx) {
		return "", false
	}
	return to, true
}
