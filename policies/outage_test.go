package policies

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestNextProbe(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	open := Breaker{State: BreakerOpen, OpenedAt: t0, Cooldown: 40 * time.Second, Failures: 5, Threshold: 5}
	tests := []struct {
		name     string
		b        Breaker
		now      time.Time
		from, to time.Duration // the probe lies in [t0+from, t0+to)
	}{
		{"at the cooldown's end, within a quarter of it", open, t0.Add(5 * time.Second), 40 * time.Second, 50 * time.Second},
		{"cooldown over: a quarter of it from now", open, t0.Add(60 * time.Second), 70 * time.Second, 80 * time.Second},
		{"a short cooldown spreads over a second at least", Breaker{State: BreakerOpen, OpenedAt: t0, Cooldown: time.Second}, t0, time.Second, 2 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			at := NextProbe(tc.b, tc.now, "run-1/search")
			require.False(t, at.Before(t0.Add(tc.from)), at)
			require.True(t, at.Before(t0.Add(tc.to)), at)
			require.Equal(t, at, NextProbe(tc.b, tc.now, "run-1/search"), "the same seed, the same probe")
		})
	}
}

// Runs waiting out one outage probe at different moments.
func TestNextProbeSpreadsRuns(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	b := Breaker{State: BreakerOpen, OpenedAt: t0, Cooldown: 30 * time.Second}
	seen := map[time.Time]bool{}
	for i := range 100 {
		seen[NextProbe(b, t0, string(rune('a'+i%26))+string(rune('A'+i/26)))] = true
	}
	require.Greater(t, len(seen), 50, "100 runs probe at more than 50 moments")
}

func TestOutageWaited(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	require.False(t, OutageWaited(t0, t0.Add(30*time.Minute), 30*time.Minute), "a probe at the bound is still made")
	require.True(t, OutageWaited(t0, t0.Add(30*time.Minute+time.Second), 30*time.Minute))
	require.True(t, OutageWaited(t0, t0.Add(time.Hour), 30*time.Minute), "a cooldown longer than the bound: no wait")
}

func TestOutageParks(t *testing.T) {
	tests := []struct {
		class                Class
		workerRefused, write bool
		parks                bool
	}{
		{Transient, false, false, true},
		{Transient, false, true, false},
		{Persistent, true, true, true},
		{Timeout, false, false, false},
		{Fatal, false, false, false},
		{InvalidArgs, false, false, false},
	}
	for _, tc := range tests {
		require.Equal(t, tc.parks, OutageParks(tc.class, tc.workerRefused, tc.write), "%+v", tc)
	}
}
