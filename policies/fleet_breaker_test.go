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
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFleetBreaker(5, time.Minute)
			for _, o := range tc.outcomes {
				switch o {
				case 'x':
					f.RecordError(now, Transient)
				case 'i':
					f.RecordError(now, InvalidArgs)
				case 'o':
					f.Record(now, true)
				}
			}
			require.Equal(t, tc.want, f.State)
			require.Equal(t, tc.failures, f.Failures)
		})
	}
}

// Open, a fleet breaker is a Breaker: refused until the cooldown, one
// trial, its failure opens it again at once, its success closes it; after
// that, the tool has answered lately and needs FleetWindow failures.
func TestFleetBreakerTrial(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	f := NewFleetBreaker(2, time.Minute)
	f.RecordError(now, Transient)
	f.RecordError(now, Transient)
	require.Equal(t, BreakerOpen, f.State)
	require.False(t, f.Allow(now.Add(time.Second)))
	later := now.Add(2 * time.Minute)
	require.True(t, f.Allow(later), "the trial")
	require.False(t, f.Allow(later), "one trial at a time")
	f.RecordError(later, Transient)
	require.Equal(t, BreakerOpen, f.State, "a failed trial opens it again")
	later = later.Add(2 * time.Minute)
	require.True(t, f.Allow(later))
	f.Record(later, true)
	require.Equal(t, BreakerClosed, f.State)
	for range FleetWindow - 1 {
		f.RecordError(later, Transient)
	}
	require.Equal(t, BreakerClosed, f.State, "the trial's success counts: the tool answered lately")
	f.RecordError(later, Transient)
	require.Equal(t, BreakerOpen, f.State)
}

// A success closes a fleet breaker in any state: a call let through
// before it opened that succeeds after, or a trial's success after a late
// failure reopened it.
func TestFleetBreakerLateSuccess(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	f := NewFleetBreaker(2, time.Minute)
	f.RecordError(now, Transient)
	f.RecordError(now, Transient)
	require.Equal(t, BreakerOpen, f.State)
	f.Record(now, true)
	require.Equal(t, BreakerClosed, f.State, "a call in flight when it opened succeeded")
	require.Equal(t, 0, f.Failures)

	g := NewFleetBreaker(2, time.Minute)
	g.RecordError(now, Transient)
	g.RecordError(now, Transient)
	later := now.Add(2 * time.Minute)
	require.True(t, g.Allow(later), "the trial")
	g.RecordError(later, Transient) // a late failure of an earlier call
	require.Equal(t, BreakerOpen, g.State)
	g.Record(later, true) // the trial's success
	require.Equal(t, BreakerClosed, g.State)
}
