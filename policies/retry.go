package policies

import (
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
