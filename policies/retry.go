package policies

import (
	"math"
	"time"

	"github.com/unstuck-dev/unstuck/config"
)

// RetrySpec is a retry policy in plain Go; the workflow turns it into a
// temporal.RetryPolicy. Keeping it here keeps the defaults testable.
type RetrySpec struct {
	InitialInterval time.Duration
	Backoff         float64
	MaxInterval     time.Duration
	MaxAttempts     int
	NonRetryable    []string
}

// Default retry policies when the config says nothing.
var (
	DefaultToolRetry  = config.DefaultRetry()
	DefaultModelRetry = config.DefaultModelRetry()
)

// Retry builds a retry spec from config, filling the intervals and backoff
// it leaves out from def (all of def when r is nil), and never retrying the given error types.
func Retry(r *config.Retry, def config.Retry, nonRetryable ...string) RetrySpec {
	eff := def
	if r != nil {
		if r.InitialInterval > 0 {
			eff.InitialInterval = r.InitialInterval
		}
		if r.Backoff >= 1 {
			eff.Backoff = r.Backoff
		}
		if r.MaxInterval > 0 {
			eff.MaxInterval = r.MaxInterval
		}
		// 0 is Temporal's "unlimited" and is kept: config has already
		// filled max_attempts when the file left it out.
		eff.MaxAttempts = r.MaxAttempts
	}
	if eff.MaxInterval < eff.InitialInterval {
		eff.MaxInterval = eff.InitialInterval
	}
	return RetrySpec{
		InitialInterval: eff.InitialInterval.D(),
		Backoff:         eff.Backoff,
		MaxInterval:     eff.MaxInterval.D(),
		MaxAttempts:     eff.MaxAttempts,
		NonRetryable:    append([]string(nil), nonRetryable...),
	}
}

// ScheduleToClose bounds all attempts of an activity under a retry policy:
// every attempt's start-to-close plus every wait between two attempts
// (initial interval × backoff^k, capped by the max interval, as Temporal
// waits). A call that keeps timing out therefore ends when its attempts
// would have, instead of holding its step. It answers 0, no bound, when
// the attempts are unlimited (MaxAttempts 0), the start-to-close is not
// set, or the bound is past what a Duration holds. Intervals the spec
// leaves at zero are Temporal's defaults (1s, backoff 2, max 100 × initial).
func ScheduleToClose(s RetrySpec, startToClose time.Duration) time.Duration {
	if s.MaxAttempts <= 0 || startToClose <= 0 {
		return 0
	}
	initial, backoff, maxInterval := s.InitialInterval, s.Backoff, s.MaxInterval
	if initial <= 0 {
		initial = time.Second
	}
	if backoff < 1 {
		backoff = 2
	}
	if maxInterval <= 0 {
		maxInterval = 100 * initial
	}
	if maxInterval < initial {
		maxInterval = initial
	}
	const limit = float64(math.MaxInt64)
	total := float64(s.MaxAttempts) * float64(startToClose)
	wait := float64(initial)
	for k := 1; k < s.MaxAttempts && total < limit; k++ {
		if wait >= float64(maxInterval) {
			// Capped from here on: the remaining waits are all the max.
			total += float64(s.MaxAttempts-k) * float64(maxInterval)
			break
		}
		total += float64(time.Duration(wait))
		wait *= backoff
	}
	if total >= limit {
		return 0
	}
	return time.Duration(total)
}
