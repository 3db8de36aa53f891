package feed

import (
	"context"
	"errors"

	"go.temporal.io/api/serviceerror"
)

// maxFailedReads is how many reads of a run in a row may fail for a
// reason that passes before a follower gives up: a query that timed out
// while the worker was busy does not end a stream of a run that is fine.
const maxFailedReads = 6

// passing says whether a read failed for a reason that may pass by the
// next one: its own deadline (not the follower's), or the server busy or
// unavailable a moment.
func passing(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var unavailable *serviceerror.Unavailable
	var exhausted *serviceerror.ResourceExhausted
	var deadline *serviceerror.DeadlineExceeded
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &unavailable) || errors.As(err, &exhausted) || errors.As(err, &deadline)
}
