package workflows

import (
	"fmt"
)

// The guards that keep a run inside Temporal's limits fail (or queue) the
// smallest thing with a clear error instead of failing the workflow task
// for good: a reply's calls past calls_per_reply, tool activities past
// calls_in_flight, arguments or an output over the payload limit.

func overCallsPerReply(n, limit int) string {
	return fmt.Sprintf("not run: the reply made %d calls, over the limit of %d calls per reply (policies.limits.calls_per_reply); make at most %d calls at once", n, limit, limit)
}
