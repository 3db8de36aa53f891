package policies

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Every wait is within [0.5, 1.0] of the capped exponential delay.
func TestBackoffBounds(t *testing.T) {
	cases := []struct {
		initial, max time.Duration
		factor       float64
	}{
		{time.Second, time.Minute, 2},
		{100 * time.Millisecond, 30 * time.Second, 1.5},
		{time.Second, time.Second, 3},
		{time.Second, 0, 2}, // no cap
		{time.Millisecond, time.Hour, 10},
	}
	for _, tc := range cases {
		for attempt := 1; attempt <= 30; attempt++ {
			for _, seed := range []string{"", "wf-1", "wf-2", "a long workflow id / with separators"} {
				name := fmt.Sprintf("%s/%s/x%g attempt %d seed %q", tc.initial, tc.max, tc.factor, attempt, seed)
				full := float64(tc.initial) * math.Pow(tc.factor, float64(attempt-1))
				if tc.max > 0 {
					full = math.Min(full, float64(tc.max))
				}
				full = math.Min(full, math.MaxInt64)
				got := Backoff(attempt, tc.initial, tc.max, tc.factor, seed)
				require.GreaterOrEqual(t, float64(got), 0.5*full*(1-1e-12), name)
				require.LessOrEqual(t, float64(got), full, name)
				if tc.max > 0 {
					require.LessOrEqual(t, got, tc.max, name)
				}
			}
		}
	}
}

// The same inputs give the same wait (replay); seeds and attempts spread.
func TestBackoffIsDeterministic(t *testing.T) {
	a := Backoff(3, time.Second, time.Minute, 2, "wf-1")
	for range 100 {
		require.Equal(t, a, Backoff(3, time.Second, time.Minute, 2, "wf-1"))
	}
	seen := map[time.Duration]bool{}
	for i := range 100 {
		seen[Backoff(20, time.Second, time.Minute, 2, fmt.Sprint("wf-", i))] = true
	}
	require.Greater(t, len(seen), 90, "capped waits of different runs differ")
	// The jitter spreads over its whole range, not a corner of it.
	lo, hi := 1.0, 0.0
	for i := range 1000 {
		j := jitter(fmt.Sprint(i), 1)
		lo, hi = math.Min(lo, j), math.Max(hi, j)
		require.True(t, j >= 0.5 && j < 1, "jitter %v", j)
	}
	require.Less(t, lo, 0.51)
	require.Greater(t, hi, 0.99)
}

func TestBackoffEdges(t *testing.T) {
	cases := []struct {
		name            string
		attempt         int
		initial, max    time.Duration
		factor          float64
		atLeast, atMost time.Duration
	}{
		{"no initial delay", 3, 0, time.Minute, 2, 0, 0},
		{"negative initial delay", 3, -time.Second, time.Minute, 2, 0, 0},
		{"attempt 0 is the first", 0, time.Second, time.Minute, 2, 500 * time.Millisecond, time.Second},
		{"negative attempt is the first", -5, time.Second, time.Minute, 2, 500 * time.Millisecond, time.Second},
		{"factor below 1 is 1", 10, time.Second, time.Minute, 0.5, 500 * time.Millisecond, time.Second},
		{"NaN factor is 1", 10, time.Second, time.Minute, math.NaN(), 500 * time.Millisecond, time.Second},
		{"infinite factor is capped", 3, time.Second, time.Minute, math.Inf(1), 30 * time.Second, time.Minute},
		{"huge attempt is capped", math.MaxInt, time.Second, time.Minute, 2, 30 * time.Second, time.Minute},
		{"max below initial is initial", 4, time.Second, time.Millisecond, 2, 500 * time.Millisecond, time.Second},
		{"no cap does not overflow", math.MaxInt, time.Second, 0, 2, math.MaxInt64 / 2, math.MaxInt64},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Backoff(tc.attempt, tc.initial, tc.max, tc.factor, "seed")
			require.GreaterOrEqual(t, got, tc.atLeast)
			require.LessOrEqual(t, got, tc.atMost)
		})
	}
}
