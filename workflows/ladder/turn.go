package ladder

import (
	"go.temporal.io/sdk/workflow"
)

// In a conversation, loops are a property of one turn's work: a turn that
// ended with an answer is progress, and a person asking the same thing
// again ("check my balance") is a new request, not the agent going round.
// So a new turn starts the loop escape afresh:
//   - the detector's window (Restart: its count of events goes on, so
//     event indexes stay comparable), the events ring (a rollback goes
//     back no further than the turn's message) and the time window's
//     visits: a loop is made of the turn's own events;
//   - the ladder to its bottom rung, with the last loop's cycle, and the
//     struggle's region: no loop of this turn was met yet;
//   - the calls the explore rung blocked and the edges a rollback
//     excluded: they answered a loop of an earlier turn's work, and a
//     new request may need that call or that edge.
//
// What stays: the breakers (a tool's health is the service's, whatever
// the turn, and their cooldown is a time), the loops and escalations
// recorded (the run's record), the graph's visit counts (edge conditions
// read them as the run's).

// FreshTurn starts the loop escape afresh as a conversation's turn
// begins. Version turn-loops is asked only when there is something to
// forget, so a conversation that met no loop event records no marker.
func (e *Escape) FreshTurn(ctx workflow.Context) {
	if !e.heldByTurn() || e.version(ctx, e.gates.TurnLoops, 1) < 1 {
		return
	}
	e.forgetTurn()
}

// heldByTurn reports whether the run holds loop state a new turn forgets.
func (e *Escape) heldByTurn() bool {
	l := e.s
	d := l.Detector
	return (d != nil && (d.Seen > d.Since || d.Streak > 0 || len(d.StateCounts) > 0)) ||
		len(l.Events) > 0 || climbed(&l.Ladder) || l.LastCycle != nil || l.LastCycleNodes != nil ||
		len(l.Blocked) > 0 || (l.VisitWindow != nil && len(l.VisitWindow.Recent) > 0) ||
		len(l.Struggle.Region) > 0 || l.Struggle.Away || l.Struggle.Since > 0 ||
		len(*e.excluded) > 0
}

// forgetTurn is what a new turn forgets of the loop escape (above).
func (e *Escape) forgetTurn() {
	l := e.s
	if l.Detector != nil {
		l.Detector.Restart()
	}
	l.Events = nil
	if l.VisitWindow != nil {
		l.VisitWindow.Reset()
	}
	l.Ladder.Reset()
	l.LastCycle, l.LastCycleNodes = nil, nil
	l.Struggle.End()
	l.Blocked = nil
	*e.excluded = nil
}
