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
	return waitDue(p.WaitingSince, p.Deadline, p.Escalations, p.Overdue, now)
}

// waitDue is how long a wait for a person (an approval, a reply) has
// waited since since and when it is due, as of now; "" when either is
// not known.
func waitDue(since, deadline time.Time, escalations int, overdue bool, now time.Time) string {
	if since.IsZero() || deadline.IsZero() {
		return ""
	}
	s := fmt.Sprintf("\twaiting %s, due in %s", roundDue(now.Sub(since)), roundDue(deadline.Sub(now)))
	if escalations > 0 {
		s += fmt.Sprintf(", escalated %d", escalations)
	}
	if overdue || policies.PastHalf(since, deadline, now) {
		s += ", OVERDUE (past half its timeout)"
	}
	return s
}

// roundDue is d to the second, never below 0.
func roundDue(d time.Duration) time.Duration { return max(d, 0).Round(time.Second) }
