package policies

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// workerBreaker is what the worker does with its breakers.
type workerBreaker interface {
	Allow(now time.Time) bool
	Record(now time.Time, ok bool)
	RecordError(now time.Time, class Class)
	Release()
}

// playBreaker plays a script of steps on b, a minute's cooldown: "A" a
// call allowed, "R" a call refused, "o" a success, "x" a failure of the
// service, "i" a bad argument, "c" a call abandoned, "w" a cooldown
// passes.
func playBreaker(t *testing.T, b workerBreaker, script string) {
	t.Helper()
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for i, step := range strings.Fields(script) {
		switch step {
		case "A", "R":
			require.Equal(t, step == "A", b.Allow(now), "step %d (%s) of %q", i, step, script)
		case "o":
			b.Record(now, true)
		case "x":
			b.RecordError(now, Transient)
		case "i":
			b.RecordError(now, InvalidArgs)
		case "c":
			b.Release()
		case "w":
			now = now.Add(time.Minute)
		default:
			t.Fatalf("unknown step %q", step)
		}
		now = now.Add(time.Millisecond)
	}
}

func TestRampBreaker(t *testing.T) {
	cases := []struct {
		name   string
		bound  int
		script string
		state  string
		limit  int
	}{
		{"opens at the threshold, refuses until the cooldown", 4, "A x A x R", BreakerOpen, 1},
		{"a success clears the count", 4, "x o x A", BreakerClosed, 1},
		{"after the cooldown, one trial alone", 4, "x x w A R R", BreakerHalfOpen, 1},
		{"slow start: each success lets two more through", 4, "x x w A R o A A R o A A R", BreakerHalfOpen, 3},
		{"closed once the limit reaches the bound", 4, "x x w A o A A o A A o A A A A A A", BreakerClosed, 1},
		{"the first trial's failure opens it for a new cooldown", 4, "x x w A x R R w A R", BreakerHalfOpen, 1},
		{"once a trial passed, a failure keeps the ramp: flaky, not dead", 4, "x x w A o A A x A R", BreakerHalfOpen, 2},
		{"once a trial passed, the bound's failures in a row open it", 4, "x x w A o A A x x A x x R", BreakerOpen, 1},
		{"a success between failures keeps it ramping", 4, "x x w A o A A x x A o A x x A", BreakerHalfOpen, 3},
		{"bound 1: the first trial's success closes it", 1, "x x w A R o A A A", BreakerClosed, 1},
		{"an abandoned trial gives its place up", 4, "x x w A R c A R", BreakerHalfOpen, 1},
		{"a bad argument is not the service's: its place only", 4, "x x w A i A R", BreakerHalfOpen, 1},
		{"a late success while open begins the ramp", 4, "x x o A A R", BreakerHalfOpen, 2},
		{"a late failure while open changes nothing", 4, "x x x R w A", BreakerHalfOpen, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRampBreaker(2, time.Minute, tc.bound)
			playBreaker(t, r, tc.script)
			require.Equal(t, tc.state, r.State)
			if r.State == BreakerHalfOpen {
				require.Equal(t, tc.limit, r.Limit())
			}
		})
	}
}

// The ramp lets at most its limit through at once, and the limit grows
// to the bound by one a success: 1, 2, 3, ... trials in flight.
func TestRampBreakerLimitGrowsToTheBound(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	r := NewRampBreaker(1, time.Minute, FleetWindow)
	r.Record(now, false)
	now = now.Add(time.Minute)
	for want := 1; want < FleetWindow; want++ {
		admitted := 0
		for r.Allow(now) {
			admitted++
		}
		require.Equal(t, want, r.Trials, "trials in flight at limit %d", want)
		require.LessOrEqual(t, admitted, want)
		r.Record(now, true)
	}
	require.Equal(t, BreakerClosed, r.State, "%d successes in a row: the ramp is over", FleetWindow-1)
}

func TestRampBound(t *testing.T) {
	for _, tc := range []struct{ maxConcurrent, want int }{
		{0, FleetWindow}, {1, 1}, {4, 4}, {FleetWindow, FleetWindow}, {1000, FleetWindow},
	} {
		require.Equal(t, tc.want, RampBound(tc.maxConcurrent), "max_concurrent %d", tc.maxConcurrent)
	}
}

// A zero breaker is a closed one, no cooldown, whose first trial's
// success closes it.
func TestRampBreakerZero(t *testing.T) {
	var r RampBreaker
	playBreaker(t, &r, "A x A R o A A")
	require.Equal(t, BreakerClosed, r.State)
}
