package ladder

import (
	"slices"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// What becomes of the loop escape a run carries when the run changes
// hands.

// HandedOver starts the loop escape afresh for the agent the run was
// handed to (its own detector, breakers and ladder); the record of the
// loops met stays the run's.
func (s *State) HandedOver() {
	*s = State{Loops: s.Loops, LoopsDropped: s.LoopsDropped}
}

// BoundBy starts afresh what is not as the agent's policies p say: a
// detector, time window or breaker with other bounds, a ladder with other
// rungs or a rung past its top (a forked source's state is an answer to a
// query, which anyone with a worker in the namespace can give). A genuine
// source under the same config keeps all of it.
func (s *State) BoundBy(p config.Policies) {
	if d := s.Detector; d != nil {
		want := policies.NewLoopDetector(p.Loop.Window, p.Loop.Repeats)
		if d.Window != want.Window || d.Repeats != want.Repeats {
			s.Detector = nil
		}
	}
	if v := s.VisitWindow; v != nil {
		if tw := p.Loop.TimeWindow; tw == nil || v.Visits != tw.Visits || v.Within != tw.Within.D() {
			s.VisitWindow = nil
		}
	}
	want := policies.NewBreaker(p.Breaker.Failures, p.Breaker.Cooldown.D())
	// Deleting entries: the order does not matter.
	//workflowcheck:ignore
	for name, b := range s.Breakers {
		if b == nil || b.Threshold != want.Threshold || b.Cooldown != want.Cooldown {
			delete(s.Breakers, name)
		}
	}
	if l := s.Ladder; !slices.Equal(l.Rungs, p.Escalation) || l.Next < 0 || l.Next > len(l.Rungs) {
		s.Ladder = policies.Ladder{}
	}
}
