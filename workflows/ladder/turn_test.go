package ladder

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// What a new turn forgets, and that it forgets all of it.
func TestNewTurnForgetsTheLoopEscapeButTheBreakers(t *testing.T) {
	rec := &recorded{}
	e, run := escapeOver(rec, nil), &rec.State
	require.False(t, e.heldByTurn(), "a run that met no loop event")
	d := policies.NewLoopDetector(8, 3)
	for range 3 {
		d.Observe(policies.LoopEvent{Signature: "s"})
	}
	run.Detector = d
	run.Events = []policies.EventRef{{NodeID: "n1"}}
	run.Ladder = policies.Ladder{Rungs: []string{policies.RungRetry, policies.RungStop}, Next: 1, Repaired: true}
	run.LastCycle, run.LastCycleNodes = []string{"s"}, []string{"L"}
	run.Blocked = []string{"search(PAR)"}
	run.VisitWindow = policies.NewVisitWindow(2, time.Minute)
	run.VisitWindow.Observe("L", 0, time.Unix(0, 0), 1)
	run.Struggle = policies.Struggle{Region: []string{"L"}, Away: true, Since: 3}
	rec.ExcludedEdges = []string{"L->E"}
	run.Breakers = map[string]*policies.Breaker{"search": policies.NewBreaker(3, time.Minute)}
	run.Loops = []signals.Loop{{Kind: policies.LoopCycle}}
	require.True(t, e.heldByTurn())

	e.forgetTurn()
	require.False(t, e.heldByTurn(), "nothing is left to forget")
	require.Nil(t, rec.ExcludedEdges, "the edges a rollback excluded are forgotten")
	require.Equal(t, 3, run.Detector.Seen, "the detector's count goes on")
	require.Nil(t, run.Detector.Observe(policies.LoopEvent{Signature: "s"}), "the earlier turn's events make no loop with this one's")
	require.Equal(t, []string{policies.RungRetry, policies.RungStop}, run.Ladder.Rungs)
	require.Equal(t, 0, run.Ladder.Next)
	require.Contains(t, run.Breakers, "search", "a tool's health outlives the turn")
	require.Len(t, run.Loops, 1, "the record of loops stays")

	// Each field alone is held.
	for name, set := range map[string]func(*recorded){
		"events":      func(r *recorded) { r.State.Events = []policies.EventRef{{NodeID: "n"}} },
		"ladder":      func(r *recorded) { r.State.Ladder.Next = 1 },
		"repaired":    func(r *recorded) { r.State.Ladder.Repaired = true },
		"last cycle":  func(r *recorded) { r.State.LastCycle = []string{} },
		"cycle nodes": func(r *recorded) { r.State.LastCycleNodes = []string{} },
		"blocked":     func(r *recorded) { r.State.Blocked = []string{"k"} },
		"visit window": func(r *recorded) {
			r.State.VisitWindow = &policies.VisitWindow{Recent: map[string][]policies.Visit{"L": {{}}}}
		},
		"region":      func(r *recorded) { r.State.Struggle.Region = []string{"L"} },
		"away":        func(r *recorded) { r.State.Struggle.Away = true },
		"stall count": func(r *recorded) { r.State.Struggle.Since = 1 },
		"excluded":    func(r *recorded) { r.ExcludedEdges = []string{"L->E"} },
		"detector":    func(r *recorded) { r.State.Detector = &policies.LoopDetector{Seen: 1} },
		"streak":      func(r *recorded) { r.State.Detector = &policies.LoopDetector{Streak: 1} },
		"states":      func(r *recorded) { r.State.Detector = &policies.LoopDetector{StateCounts: map[string]int{"h": 1}} },
	} {
		r := &recorded{}
		set(r)
		e := escapeOver(r, nil)
		require.True(t, e.heldByTurn(), name)
		e.forgetTurn()
		require.False(t, e.heldByTurn(), name)
	}
}
