package ladder

import (
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// Observe feeds one event (where: its graph node, "" free-form; nodeID:
// its trace node) to the loop detector and answers the loop it completes,
// recorded in the run's list of loops, or nil; progress off the loop
// resets the ladder to its bottom rung (afterEvent). Climb chooses the
// rung that answers the loop.
func (e *Escape) Observe(ctx workflow.Context, where, nodeID string, ev policies.LoopEvent) *policies.Loop {
	s := e.s
	s.Events = policies.AppendEvent(s.Events, policies.EventRef{Where: where, NodeID: nodeID, Class: ev.Class}, e.spec.Agent.Policies.Loop.Window)
	loop := e.detector().Observe(e.withState(ctx, ev))
	if e.walk != nil && e.run.Visits()[where] == 1 {
		s.Struggle.Fresh(e.detector().Seen) // a new node: not going round
	}
	switch {
	case loop != nil && s.VisitWindow != nil:
		s.VisitWindow.Reset() // a report of any kind: the time window counts afresh
	case loop == nil:
		loop = e.timeWindow(ctx, where, nodeID)
	}
	if loop == nil && e.walk != nil {
		loop = e.stalled(ctx)
	}
	if loop == nil {
		e.afterEvent(ctx, where, nodeID, ev)
		return nil
	}
	s.LastCycle = loop.Cycle
	switch {
	case e.walk != nil:
		s.LastCycleNodes = cycleNodeList(s.Events, *loop)
		e.joinStruggle(ctx)
	case loop.Kind == policies.LoopTimeWindow:
		// Free-form, the window's node is a tool, called with new
		// arguments at every visit: progress is a success of another.
		s.LastCycleNodes = []string{e.visitedNode(where, nodeID)}
	default:
		s.LastCycleNodes = nil
	}
	e.recordLoop(ctx, signals.Loop{At: nodeID, Kind: loop.Kind, Cycle: loop.Cycle, Repeats: loop.Repeats})
	return loop
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
func (e *Escape) progress(ctx workflow.Context, where, nodeID string, ev policies.LoopEvent) bool {
	s := e.s
	if e.walk == nil && s.LastCycleNodes != nil {
		return policies.ResetsInGraph(ev, e.visitedNode(where, nodeID), s.LastCycleNodes)
	}
	old := policies.Resets(ev, s.LastCycle)
	if e.walk == nil || s.LastCycleNodes == nil {
		return old
	}
	now := policies.ResetsInGraph(ev, where, s.LastCycleNodes)
	if now == old || e.version(ctx, e.gates.GraphProgress, 1) < 1 {
		return old
	}
	return now
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
func (e *Escape) withState(ctx workflow.Context, ev policies.LoopEvent) policies.LoopEvent {
	ev.StateHash = policies.StateHash(e.run.StateJSON())
	if e.detector().StateLoopAt(ev) && e.version(ctx, e.gates.StateHash, 1) == workflow.DefaultVersion {
		ev.StateHash = ""
	}
	return ev
}

// timeWindow feeds the visit to policies.loop.time_window, for an agent
// that has one, and answers the loop it completes. The node is the graph
// node or, in a free-form run, the tool the call asked for (visitedNode).
// Version time-window is asked only when a window fills, which runs of
// agents without one never see.
func (e *Escape) timeWindow(ctx workflow.Context, where, nodeID string) *policies.Loop {
	tw := e.spec.Agent.Policies.Loop.TimeWindow
	if tw == nil {
		return nil
	}
	if e.s.VisitWindow == nil {
		e.s.VisitWindow = policies.NewVisitWindow(tw.Visits, tw.Within.D())
	}
	d := e.detector()
	loop := e.s.VisitWindow.Observe(e.visitedNode(where, nodeID), d.Seen-1, workflow.Now(ctx), len(e.s.Events))
	if loop == nil || e.version(ctx, e.gates.TimeWindow, 1) == workflow.DefaultVersion {
		return nil
	}
	loop.Cycle = d.Last(loop.Period)
	d.Restart()
	return loop
}

// visitedNode is the node an event visited, for the time window: the graph
// node or, in a free-form run, the tool the call asked for (Node.Tool: a
// fallback serving it does not make it another tool's visit).
func (e *Escape) visitedNode(where, nodeID string) string {
	if e.walk != nil {
		return where
	}
	if n, ok := e.run.Node(nodeID); ok {
		return n.Tool
	}
	return ""
}
