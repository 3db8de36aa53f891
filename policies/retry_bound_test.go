package policies

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

// ScheduleToClose is every attempt's start-to-close plus the waits
// between attempts, each initial × backoff^k capped by the max interval.
func TestScheduleToClose(t *testing.T) {
	const s = time.Second
	cases := []struct {
		name  string
		spec  RetrySpec
		start time.Duration
		want  time.Duration
	}{
		{"one attempt: no wait", RetrySpec{InitialInterval: s, Backoff: 2, MaxInterval: 30 * s, MaxAttempts: 1}, 10 * s, 10 * s},
		{"two attempts: one initial wait", RetrySpec{InitialInterval: s, Backoff: 2, MaxInterval: 30 * s, MaxAttempts: 2}, 10 * s, 21 * s},
		{"the tool default: 1+2+4+8", RetrySpec{InitialInterval: s, Backoff: 2, MaxInterval: 30 * s, MaxAttempts: 5}, 35 * s, 5*35*s + 15*s},
		{"capped by max interval: 1+2+4+5+5", RetrySpec{InitialInterval: s, Backoff: 2, MaxInterval: 5 * s, MaxAttempts: 6}, s, 6*s + 17*s},
		{"backoff 1: equal waits", RetrySpec{InitialInterval: 2 * s, Backoff: 1, MaxInterval: 2 * s, MaxAttempts: 4}, s, 4*s + 6*s},
		{"fractional backoff: 100+150+225ms", RetrySpec{InitialInterval: 100 * time.Millisecond, Backoff: 1.5, MaxInterval: time.Minute, MaxAttempts: 4}, 300 * time.Millisecond, 1200*time.Millisecond + 475*time.Millisecond},
		{"max below initial acts as initial", RetrySpec{InitialInterval: 3 * s, Backoff: 2, MaxInterval: s, MaxAttempts: 3}, s, 3*s + 6*s},
		{"zero intervals are Temporal's defaults: 1+2", RetrySpec{MaxAttempts: 3}, s, 3*s + 3*s},
		{"many attempts, capped: closed form", RetrySpec{InitialInterval: s, Backoff: 2, MaxInterval: 4 * s, MaxAttempts: 1_000_000}, s, 1_000_000*s + (1+2)*s + (1_000_000-3)*4*s},
		{"unlimited attempts: no bound", RetrySpec{InitialInterval: s, Backoff: 2, MaxInterval: 30 * s, MaxAttempts: 0}, 10 * s, 0},
		{"no start-to-close: no bound", RetrySpec{InitialInterval: s, Backoff: 2, MaxInterval: 30 * s, MaxAttempts: 3}, 0, 0},
		{"past a Duration: no bound", RetrySpec{InitialInterval: s, Backoff: 2, MaxInterval: 30 * s, MaxAttempts: math.MaxInt32}, time.Duration(math.MaxInt64 / 1000), 0},
		{"huge backoff does not overflow", RetrySpec{InitialInterval: s, Backoff: 1e300, MaxInterval: time.Hour, MaxAttempts: 4}, s, 4*s + s + 2*time.Hour},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, ScheduleToClose(c.spec, c.start))
		})
	}
}

// The bound of a tool with the default retry policy and timeout, as the
// workflow computes it.
func TestScheduleToCloseOfTheDefaultToolRetry(t *testing.T) {
	spec := Retry(nil, DefaultToolRetry)
	start := config.DefaultHTTPTimeout.D() + 5*time.Second
	require.Equal(t, 5*start+(1+2+4+8)*time.Second, ScheduleToClose(spec, start))
}
