package policies

import (
	"slices"

	"github.com/unstuck-dev/unstuck/config"
)

// The rungs of the escalation ladder (policies.escalation), each a way out
// of a loop, from the cheapest to the last resort.
const (
	// RungRetry waits (Backoff) and goes on: the error may be transient.
	RungRetry = config.RungRetry
	// RungSubstitute opens the tool's breaker so its fallback is used.
	RungSubstitute = config.RungSubstitute
	// RungExplore leaves the cycle: another edge, or the loop's calls blocked.
	RungExplore = config.RungExplore
	// RungRollback goes back to before the loop began.
	RungRollback = config.RungRollback
	// RungHandoff hands the run to a better-suited agent.
	RungHandoff = config.RungHandoff
	// RungHuman asks a person.
	RungHuman = config.RungHuman
	// RungStop ends the run with a report.
	RungStop = config.RungStop
)

// Ladder is the escalation ladder of a run: the agent's rungs in order and
// the next one to try. It lives in the run state (JSON round-trips), so a
// run climbs on after continue-as-new instead of starting again at the
// bottom.
type Ladder struct {
	Rungs []string `json:"rungs"`
	Next  int      `json:"next"`
	// Repaired: RungRepair was taken since the last Reset (RepairFirst).
	Repaired bool `json:"repaired,omitempty"`
}

// NewLadder is a ladder at its bottom rung, with its own copy of rungs.
func NewLadder(rungs []string) *Ladder {
	return &Ladder{Rungs: slices.Clone(rungs)}
}

// Climb answers the next rung that is available and moves past it. A rung
// that cannot act now (handoff with no handoff targets, substitute for a
// tool without fallback; available says) is skipped for this climb and
// not offered again until Reset. Stop is always available and is the end:
// no rung after it is offered. ok is false once the ladder is exhausted;
// available nil means every rung is.
func (l *Ladder) Climb(available func(rung string) bool) (rung string, ok bool) {
	l.Next = max(l.Next, 0)
	for l.Next < len(l.Rungs) {
		r := l.Rungs[l.Next]
		l.Next++
		if r == RungStop {
			l.Next = len(l.Rungs)
			return r, true
		}
		if available == nil || available(r) {
			return r, true
		}
	}
	return "", false
}

// Reset brings the ladder back to its bottom rung, once the run has made
// progress off the loop that made it climb.
func (l *Ladder) Reset() { l.Next, l.Repaired = 0, false }

// Exhausted reports whether no rung is left to climb.
func (l *Ladder) Exhausted() bool { return l.Next >= len(l.Rungs) }
