package policies

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// outcomes: "x" a failure of the tool, "o" a success, "i" a bad argument.
func TestFleetBreaker(t *testing.T) {
	cases := []struct {
		name     string
		outcomes string
		want     string // the state after them
		failures int
	}{
		{"dead from the start: cut at the threshold", "xxxxx", BreakerOpen, 5},
		{"one short of the threshold", "xxxx", BreakerClosed, 4},
		{"bad arguments are not the tool's", "xixixixi", BreakerClosed, 4},
		{"flaky: five in a row after a success do not open it", "oxxxxx", BreakerClosed, 5},
		{"flaky, five in a row across runs, as a 60% tool gives them", "xxoxoxxxxxxoxxxxx", BreakerClosed, 5},
		{"a tool that answered lately: cut after FleetWindow failures in a row", "o" + strings.Repeat("x", FleetWindow), BreakerOpen, FleetWindow},
		{"one short of FleetWindow", "o" + strings.Repeat("x", FleetWindow-1), BreakerClosed, FleetWindow - 1},
		{"a long past success: still FleetWindow", strings.Repeat("o", 100) + strings.Repeat("x", FleetWindow-1), BreakerClosed, FleetWindow - 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFleetBreaker(5, time.Minute, FleetWindow)
			playBreaker(t, f, strings.Join(strings.Split(tc.outcomes, ""), " "))
			require.Equal(t, tc.want, f.State)
			require.Equal(t, tc.failures, f.Failures)
		})
	}
}

// Open, a fleet breaker is a RampBreaker: refused until the cooldown,
// one trial, its failure opens it again at once; its successes ramp it
// up to the bound, where it closes; after that, the tool has answered
// lately and needs FleetWindow failures.
func TestFleetBreakerRamp(t *testing.T) {
	f := NewFleetBreaker(2, time.Minute, 3)
	playBreaker(t, f, "x x R w A R x R w A R o A A R o A A A A")
	require.Equal(t, BreakerClosed, f.State)
	playBreaker(t, f, strings.Repeat("x ", FleetWindow-1)+"A")
	require.Equal(t, BreakerClosed, f.State, "the ramp's successes count: the tool answered lately")
	playBreaker(t, f, "x R")
	require.Equal(t, BreakerOpen, f.State)
}

// A success while open (a call let through before it opened) begins the
// ramp, as a trial's would: the tool answers, but not yet to every run.
func TestFleetBreakerLateSuccess(t *testing.T) {
	f := NewFleetBreaker(2, time.Minute, FleetWindow)
	playBreaker(t, f, "x x R o A A R")
	require.Equal(t, BreakerHalfOpen, f.State)
	require.Equal(t, 0, f.Failures)
}
