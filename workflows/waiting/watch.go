package waiting

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
)

// Watch, for the life of a generation, waits until the run should
// continue as new while waiting, then begins the switch: the waits end
// held and the step carries them over (Continue). The gate of the kind of
// wait is asked only then, so runs that never get there record no marker;
// a kind a run recorded before (which went on waiting) leaves the watch to
// the other kinds.
func (w *Waits[S]) Watch(ctx workflow.Context) {
	before := map[Gate]bool{}
	for {
		if err := workflow.Await(ctx, func() bool {
			return policies.ContinueWhileWaiting(w.view(ctx)) && !before[w.gate()]
		}); err != nil {
			return
		}
		g := w.gate()
		if w.run.Gate(ctx, g) {
			live(w.life.BeginSwitch())
			return
		}
		before[g] = true // as runs recorded before: the wait goes on
	}
}

// gate is the change that gates continuing as new while waiting, by the
// kind of wait and the run's shape: each asks one, so which marker a run
// records depends on nothing else.
func (w *Waits[S]) gate() Gate {
	switch {
	case w.onlyParked():
		return GateOutage
	case w.people.HumanRung():
		return GateRung
	case w.run.Graph():
		return GateGraph
	}
	return GateFreeForm
}

// view is what policies.ContinueWhileWaiting reads.
func (w *Waits[S]) view(ctx workflow.Context) policies.WaitView {
	return policies.WaitView{
		ContinueAsNewSuggested: workflow.GetInfo(ctx).GetContinueAsNewSuggested(),
		Waiting:                w.people.Waiting() || w.run.Budget().Carries() || w.run.TurnWaiting() || len(w.run.Parked()) > 0,
		Streaming:              w.run.Streaming(),
		Interrupting:           w.life.Interrupting(),
		Closing:                w.life.Closing() || w.life.HandingOver() != "",
	}
}

// onlyParked: the run waits out an outage, and for nothing else.
func (w *Waits[S]) onlyParked() bool {
	return len(w.run.Parked()) > 0 && !w.people.Waiting() && !w.run.Budget().Carries() && !w.run.TurnWaiting()
}
