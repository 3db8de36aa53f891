package policies

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

func TestEscalatesToTheNextGroupUntilTheLast(t *testing.T) {
	for _, tc := range []struct {
		name          string
		then          string
		level, levels int
		want          bool
	}{
		{"the first of two groups", config.ThenEscalate, 0, 2, true},
		{"the second of three", config.ThenEscalate, 1, 3, true},
		{"the last group rejects", config.ThenEscalate, 1, 2, false},
		{"one group only", config.ThenEscalate, 0, 1, false},
		{"reject never escalates", config.ThenReject, 0, 3, false},
		{"approve never escalates", config.ThenApprove, 0, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Escalates(tc.then, tc.level, tc.levels))
		})
	}
}

func TestPastHalfIsFromHalfTheTimeoutOn(t *testing.T) {
	since := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	deadline := since.Add(4 * time.Hour)
	require.False(t, PastHalf(since, deadline, since))
	require.False(t, PastHalf(since, deadline, since.Add(2*time.Hour-time.Second)))
	require.True(t, PastHalf(since, deadline, since.Add(2*time.Hour)), "the half itself is past it, as the half timer fires")
	require.True(t, PastHalf(since, deadline, deadline.Add(time.Hour)))
}
