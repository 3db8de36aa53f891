package ladder

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
)

// Climb chooses the rung that answers loop, seen at where (a graph node,
// "" free-form), by what the run knows of it (situation). targets counts
// the agents a handoff rung could hand the run to; nil when the run does
// not hand over. It answers the rung, the situation (the rung's effects
// read its loop tool) and, in a graph, the edge the explore rung takes
// out of the cycle.
func (e *Escape) Climb(ctx workflow.Context, loop *policies.Loop, where string, targets func() int) (string, policies.LoopSituation, policies.CycleExit) {
	s, exit := e.situation(ctx, loop, where, targets)
	return e.chooseRung(ctx, s), s, exit
}

// situation is what the run knows of a loop, for policies.ChooseRung,
// and in a graph the edge the explore rung would take out of the cycle.
func (e *Escape) situation(ctx workflow.Context, loop *policies.Loop, where string, targets func() int) (policies.LoopSituation, policies.CycleExit) {
	s := policies.LoopSituation{InGraph: e.walk != nil, LoopStart: policies.LoopSpan(e.s.Events, *loop)}
	lc := e.loopCallsOf(loop)
	s.BlockableCalls = len(lc)
	s.LoopTool = policies.LoopTool(lc)
	if t, ok := e.spec.Tool(s.LoopTool); ok && t.Fallback != "" {
		s.HasFallback = true
		s.BreakerOpen = e.Breaker(t.Name).State == policies.BreakerOpen
	}
	e.classSituation(&s, loop, lc)
	if targets != nil {
		s.HandoffTargets = targets()
	}
	var exit policies.CycleExit
	if g := e.walk; g != nil {
		exit, s.OffCycleEdge = e.exploreExit(ctx, where, loop)
		if s.LoopStart > 0 {
			before, first := e.s.Events[s.LoopStart-1].Where, e.s.Events[s.LoopStart].Where
			s.EdgeAroundLoop = policies.EdgeAround(before, first, g.Edges, *e.excluded)
		}
	}
	return s, exit
}

// Rungs by class: the loop's error class picks the rung (policies.RungHelps,
// policies.RepairFirst).

// classSituation fills what the rules of rungs by class read: how the
// loop's failing call failed, whether Temporal already retried it,
// whether its fallback is another provider's, what else the model could
// call, whether the run may repair arguments.
func (e *Escape) classSituation(s *policies.LoopSituation, loop *policies.Loop, calls []policies.LoopCall) {
	_, s.Class = policies.LoopFailure(calls)
	if s.Class == "" {
		s.Class = policies.Class(loop.Class) // a no-progress loop names its class
	}
	if t, ok := e.spec.Tool(s.LoopTool); ok {
		s.Retried = policies.RetriedByTemporal(s.Class, policies.Retry(t.Retry, policies.DefaultToolRetry).MaxAttempts)
		if fb, ok := e.spec.Tool(t.Fallback); ok {
			s.OtherProvider = policies.OtherProvider(t.Provider, fb.Provider)
		}
	}
	s.OtherTools = policies.OtherTools(e.spec.Agent.Tools, calls)
	s.CanRepair = !s.InGraph && e.spec.Agent.Policies.Repair.MaxAttempts > 0
}

// chooseRung climbs the ladder by the rules the run follows: those of
// rungs by class for runs that reach a loop where they choose otherwise
// than the rules before them (the version is asked only then, so a run
// whose choices do not change records no marker), else the rules before.
func (e *Escape) chooseRung(ctx workflow.Context, s policies.LoopSituation) string {
	l := e.ladder()
	before, after := *l, *l
	s.ByClass = false
	old := policies.ChooseRung(&before, s)
	s.ByClass = true
	now := policies.ChooseRung(&after, s)
	differ := old != now || before.Next != after.Next || before.Repaired != after.Repaired
	if differ && e.on(ctx, e.gates.RungsByClass) {
		*l = after
		return now
	}
	*l = before
	return old
}

// exploreExit is where path exploration leaves the loop's cycle: an edge
// off any node of the cycle, a target outside the struggle's region first
// (policies.OffRegionExit, version explore-region); before it, the least
// visited target (policies.OffCycleExit, version explore-cycle), and for
// runs started before that, an edge off the node `at` where the loop was
// seen (policies.OffCycleEdge). Each version is asked only when its
// answer differs from the rule before, so a run whose loops are seen at
// the node with the way out records no marker.
func (e *Escape) exploreExit(ctx workflow.Context, at string, loop *policies.Loop) (policies.CycleExit, bool) {
	cycle := policies.CycleNodes(e.s.Events, *loop)
	edges := e.walk.Edges
	exit, found := e.cycleExit(ctx, at, cycle)
	region, inRegion := policies.OffRegionExit(cycle, e.s.Struggle.Region, edges, *e.excluded, e.run.Visits())
	if inRegion == found && region == exit {
		return exit, found
	}
	if e.regionRules(ctx) {
		return region, inRegion
	}
	return exit, found
}

// cycleExit is exploreExit by the rules before explore-region.
func (e *Escape) cycleExit(ctx workflow.Context, at string, cycle map[string]bool) (policies.CycleExit, bool) {
	edges := e.walk.Edges
	visits := e.run.Visits()
	to, ok := policies.OffCycleEdge(at, edges, cycle, *e.excluded, visits)
	old := policies.CycleExit{From: at, To: to}
	exit, found := policies.OffCycleExit(cycle, edges, *e.excluded, visits)
	if ok == found && exit.To == to {
		return old, ok
	}
	if e.version(ctx, e.gates.ExploreCycle, 1) < 1 {
		return old, ok
	}
	return exit, found
}

// loopCallsOf are the calls of the loop's last period as the rungs see
// them: the tool each named and, when it failed, how.
func (e *Escape) loopCallsOf(loop *policies.Loop) []policies.LoopCall {
	var out []policies.LoopCall
	for _, ev := range policies.LastPeriod(e.s.Events, *loop) {
		if n, ok := e.run.Node(ev.NodeID); ok && n.Call {
			out = append(out, policies.LoopCall{Tool: n.Tool, Failed: n.Failed, Class: policies.Class(ev.Class)})
		}
	}
	return out
}

// LoopCalls are the trace nodes of the loop's last period that are calls.
func (e *Escape) LoopCalls(loop *policies.Loop) []Node {
	var out []Node
	for _, ev := range policies.LastPeriod(e.s.Events, *loop) {
		if n, ok := e.run.Node(ev.NodeID); ok && n.Call {
			out = append(out, n)
		}
	}
	return out
}
