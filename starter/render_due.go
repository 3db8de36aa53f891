package main

import (
	"fmt"
	"time"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// approvalDue is how long call p has waited and when it is due, as of
// now, flagged overdue past half its timeout ("" when the run does not
// say). The flag is the run's, or now's: a run wakes at the half only
// for an approval with its own timeout or webhooks to tell.
func approvalDue(p signals.PendingApproval, now time.Time) string {
	if p.WaitingSince.IsZero() || p.Deadline.IsZero() {
		return ""
	}
	s := fmt.Sprintf("\twaiting %s, due in %s", roundDue(now.Sub(p.WaitingSince)), roundDue(p.Deadline.Sub(now)))
	if p.Escalations > 0 {
		s += fmt.Sprintf(", escalated %d", p.Escalations)
	}
	if p.Overdue || policies.PastHalf(p.WaitingSince, p.Deadline, now) {
		s += ", OVERDUE (past half its timeout)"
	}
	return s
}

// roundDue is d to the second, never below 0.
func roundDue(d time.Duration) time.Duration { return max(d, 0).Round(time.Second) }
