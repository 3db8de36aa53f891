package policies

import (
	"time"

	"github.com/unstuck-dev/unstuck/config"
)

// Escalates says whether an approval whose deadline passed while its
// group at level (0: the first) of levels was asked goes on to the next
// group: its then is escalate and a group is left. The last group's
// deadline rejects.
func Escalates(then string, level, levels int) bool {
	return then == config.ThenEscalate && level+1 < levels
}

// PastHalf says whether a wait that began at since and times out at
// deadline has passed half its timeout at now: the same half the
// webhooks' half_timeout and the wait's split timer use.
func PastHalf(since, deadline, now time.Time) bool {
	return !now.Before(since.Add(deadline.Sub(since) / 2))
}
