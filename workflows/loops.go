package workflows

import (
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// The loop detector, the breakers and the ladder live in the run, so they
// survive crashes and continue-as-new; the rules are in policies/. This
// file feeds them; escalation.go carries out the rung a loop calls for.

// detector is the run's loop detector, created on first use.
func (r *runner) detector() *policies.LoopDetector {
	if r.run.Detector == nil {
		p := r.run.Spec.Agent.Policies.Loop
		r.run.Detector = policies.NewLoopDetector(p.Window, p.Repeats)
	}
	return r.run.Detector
}

// volatile is the tool's own volatile fields, left out of its calls'
// signatures (and blocklist keys) besides policies.DefaultVolatile.
func (r *runner) volatile(tool string) []string { return toolVolatile(r.run, tool) }

func toolVolatile(run *Run, tool string) []string {
	if run.Spec == nil {
		return nil
	}
	t, _ := run.Spec.Tool(tool)
	return t.Volatile
}

// breaker is a tool's circuit breaker, created on first use.
func (r *runner) breaker(tool string) *policies.Breaker {
	if r.run.Breakers == nil {
		r.run.Breakers = map[string]*policies.Breaker{}
	}
	b, ok := r.run.Breakers[tool]
	if !ok {
		p := r.run.Spec.Agent.Policies.Breaker
		b = policies.NewBreaker(p.Failures, p.Cooldown.D())
		r.run.Breakers[tool] = b
	}
	return b
}

// ladder is the run's escalation ladder, created on first use from the
// agent's rungs.
func (r *runner) ladder() *policies.Ladder {
	if r.run.Ladder.Rungs == nil {
		r.run.Ladder = *policies.NewLadder(r.run.Spec.Agent.Policies.Escalation)
	}
	return &r.run.Ladder
}

// observe feeds one event to the loop detector and, when it completes a
// loop, climbs the escalation ladder; progress off the loop resets the
// ladder to its bottom rung (afterEvent).
func (r *runner) observe(ctx workflow.Context, where, nodeID string, ev policies.LoopEvent) *escalation {
	r.run.Events = policies.AppendEvent(r.run.Events, policies.EventRef{Where: where, NodeID: nodeID, Class: ev.Class}, r.run.Spec.Agent.Policies.Loop.Window)
	loop := r.detector().Observe(r.withState(ctx, ev))
	if where != "" && r.run.Visits[where] == 1 {
		r.run.Struggle.Fresh(r.detector().Seen) // a new node: not going round
	}
	switch {
	case loop != nil && r.run.VisitWindow != nil:
		r.run.VisitWindow.Reset() // a report of any kind: the time window counts afresh
	case loop == nil:
		loop = r.timeWindow(ctx, where, nodeID)
	}
	if loop == nil && where != "" {
		loop = r.stalled(ctx)
	}
	if loop == nil {
		r.afterEvent(ctx, where, nodeID, ev)
		return nil
	}
	r.run.LastCycle = loop.Cycle
	switch {
	case where != "":
		r.run.LastCycleNodes = cycleNodeList(r.run.Events, *loop)
		r.joinStruggle(ctx)
	case loop.Kind == policies.LoopTimeWindow:
		// Free-form, the window's node is a tool, called with new
		// arguments at every visit: progress is a success of another.
		r.run.LastCycleNodes = []string{r.visitedNode(where, nodeID)}
	default:
		r.run.LastCycleNodes = nil
	}
	r.recordLoop(ctx, signals.Loop{At: nodeID, Kind: loop.Kind, Cycle: loop.Cycle, Repeats: loop.Repeats})
	r.count(ctx, MetricLoopsDetected, 1, "kind", loop.Kind)
	return r.escalate(ctx, loop, where)
}

// progress reports whether an event that completed no loop is progress off
// the last loop, so the ladder starts again from its bottom rung: a
// success whose signature the cycle did not hold (policies.Resets) or, in
// a graph, a success at a node outside the cycle (policies.ResetsInGraph,
// version graph-progress). The version is asked only when the two rules
// answer differently, so a run they agree on records no marker. After a
// free-form time-window loop it is a success of another tool than the
// window's: the window's tool is called with new arguments each time, so
// its signatures never repeat, and by Resets alone the next call would
// reset the ladder after every window (only version time-window reports
// such a loop, so runs from before it never get here).
func (r *runner) progress(ctx workflow.Context, where, nodeID string, ev policies.LoopEvent) bool {
	if where == "" && r.run.LastCycleNodes != nil {
		return policies.ResetsInGraph(ev, r.visitedNode(where, nodeID), r.run.LastCycleNodes)
	}
	old := policies.Resets(ev, r.run.LastCycle)
	if where == "" || r.run.LastCycleNodes == nil {
		return old
	}
	now := policies.ResetsInGraph(ev, where, r.run.LastCycleNodes)
	if now == old || versionOf(ctx, versionGraphProgress, 1) < 1 {
		return old
	}
	return now
}

// situation is what the run knows of a loop, for policies.ChooseRung,
// and in a graph the edge the explore rung would take out of the cycle.
func (r *runner) situation(ctx workflow.Context, loop *policies.Loop, where string) (policies.LoopSituation, policies.CycleExit) {
	s := policies.LoopSituation{InGraph: where != "", LoopStart: policies.LoopSpan(r.run.Events, *loop)}
	lc := r.loopCallsOf(loop)
	s.BlockableCalls = len(lc)
	s.LoopTool = policies.LoopTool(lc)
	if t, ok := r.run.Spec.Tool(s.LoopTool); ok && t.Fallback != "" {
		s.HasFallback = true
		s.BreakerOpen = r.breaker(t.Name).State == policies.BreakerOpen
	}
	r.classSituation(&s, loop, lc)
	if r.handsOver {
		s.HandoffTargets = r.handoffTargets()
	}
	var exit policies.CycleExit
	if g := r.run.Spec.Agent.Graph; s.InGraph && g != nil {
		exit, s.OffCycleEdge = r.exploreExit(ctx, where, loop)
		if s.LoopStart > 0 {
			before, first := r.run.Events[s.LoopStart-1].Where, r.run.Events[s.LoopStart].Where
			s.EdgeAroundLoop = policies.EdgeAround(before, first, g.Edges, r.run.ExcludedEdges)
		}
	}
	return s, exit
}

// exploreExit is where path exploration leaves the loop's cycle: an edge
// off any node of the cycle, a target outside the struggle's region first
// (policies.OffRegionExit, version explore-region); before it, the least
// visited target (policies.OffCycleExit, version explore-cycle), and for
// runs started before that, an edge off the node `at` where the loop was
// seen (policies.OffCycleEdge). Each version is asked only when its
// answer differs from the rule before, so a run whose loops are seen at
// the node with the way out records no marker.
func (r *runner) exploreExit(ctx workflow.Context, at string, loop *policies.Loop) (policies.CycleExit, bool) {
	cycle := policies.CycleNodes(r.run.Events, *loop)
	edges := r.run.Spec.Agent.Graph.Edges
	exit, found := r.cycleExit(ctx, at, cycle)
	region, inRegion := policies.OffRegionExit(cycle, r.run.Struggle.Region, edges, r.run.ExcludedEdges, r.run.Visits)
	if inRegion == found && region == exit {
		return exit, found
	}
	if r.regionRules(ctx) {
		return region, inRegion
	}
	return exit, found
}

// cycleExit is exploreExit by the rules before explore-region.
func (r *runner) cycleExit(ctx workflow.Context, at string, cycle map[string]bool) (policies.CycleExit, bool) {
	edges := r.run.Spec.Agent.Graph.Edges
	to, ok := policies.OffCycleEdge(at, edges, cycle, r.run.ExcludedEdges, r.run.Visits)
	old := policies.CycleExit{From: at, To: to}
	exit, found := policies.OffCycleExit(cycle, edges, r.run.ExcludedEdges, r.run.Visits)
	if ok == found && exit.To == to {
		return old, ok
	}
	if versionOf(ctx, versionExploreCycle, 1) < 1 {
		return old, ok
	}
	return exit, found
}

// loopCallsOf are the calls of the loop's last period as the rungs see
// them: the tool each named and, when it failed, how.
func (r *runner) loopCallsOf(loop *policies.Loop) []policies.LoopCall {
	var out []policies.LoopCall
	for _, e := range policies.LastPeriod(r.run.Events, *loop) {
		if n := r.run.node(e.NodeID); n != nil && n.Kind == signals.KindCall && n.Tool != "" {
			out = append(out, policies.LoopCall{Tool: n.askedTool(), Failed: n.Status == signals.StatusFailed, Class: policies.Class(e.Class)})
		}
	}
	return out
}

// loopCalls are the trace nodes of the loop's last period that are calls.
func (r *runner) loopCalls(loop *policies.Loop) []*Node {
	var out []*Node
	for _, e := range policies.LastPeriod(r.run.Events, *loop) {
		if n := r.run.node(e.NodeID); n != nil && n.Kind == signals.KindCall && n.Tool != "" {
			out = append(out, n)
		}
	}
	return out
}

// cycleNodeList are the graph nodes of the loop's last repetition, sorted
// and each once (policies.CycleNodes as a list: no map is ranged over).
func cycleNodeList(events []policies.EventRef, loop policies.Loop) []string {
	var nodes []string
	for _, e := range policies.LastPeriod(events, loop) {
		if !slices.Contains(nodes, e.Where) {
			nodes = append(nodes, e.Where)
		}
	}
	slices.Sort(nodes)
	return nodes
}

// withState puts on the event the hash of the State it left, so coming
// back to a State with nothing new is seen (a state loop). Version
// state-hash is asked only when that would complete a state loop: a run
// from before it observes the event without its hash, and never sees one.
func (r *runner) withState(ctx workflow.Context, ev policies.LoopEvent) policies.LoopEvent {
	ev.StateHash = policies.StateHash(mustJSON(r.run.State))
	if r.detector().StateLoopAt(ev) && versionOf(ctx, versionStateHash, 1) == workflow.DefaultVersion {
		ev.StateHash = ""
	}
	return ev
}

// timeWindow feeds the visit to policies.loop.time_window, for an agent
// that has one, and answers the loop it completes. The node is the graph
// node or, in a free-form run, the tool the call asked for (visitedNode).
// Version time-window is asked only when a window fills, which runs of
// agents without one never see.
func (r *runner) timeWindow(ctx workflow.Context, where, nodeID string) *policies.Loop {
	tw := r.run.Spec.Agent.Policies.Loop.TimeWindow
	if tw == nil {
		return nil
	}
	if r.run.VisitWindow == nil {
		r.run.VisitWindow = policies.NewVisitWindow(tw.Visits, tw.Within.D())
	}
	d := r.detector()
	loop := r.run.VisitWindow.Observe(r.visitedNode(where, nodeID), d.Seen-1, workflow.Now(ctx), len(r.run.Events))
	if loop == nil || versionOf(ctx, versionTimeWindow, 1) == workflow.DefaultVersion {
		return nil
	}
	loop.Cycle = d.Last(loop.Period)
	d.Restart()
	return loop
}

// visitedNode is the node an event visited, for the time window: the graph
// node or, in a free-form run, the tool the call asked for (askedTool: a
// fallback serving it does not make it another tool's visit).
func (r *runner) visitedNode(where, nodeID string) string {
	if where != "" {
		return where
	}
	if n := r.run.node(nodeID); n != nil {
		return n.askedTool()
	}
	return ""
}
