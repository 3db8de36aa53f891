package policies

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

// climbAll climbs until the ladder is exhausted.
func climbAll(l *Ladder, available func(string) bool) []string {
	var out []string
	for {
		r, ok := l.Climb(available)
		if !ok {
			return out
		}
		out = append(out, r)
	}
}

func TestLadderClimbs(t *testing.T) {
	all := []string{RungRetry, RungSubstitute, RungExplore, RungRollback, RungHandoff, RungHuman, RungStop}
	none := func(string) bool { return false }
	cases := []struct {
		name      string
		rungs     []string
		available func(string) bool
		want      []string
	}{
		{"all available, in order", all, nil, all},
		{"nothing available but stop", all, none, []string{RungStop}},
		{
			"no handoffs yet, no fallback", all,
			func(r string) bool { return r != RungHandoff && r != RungSubstitute },
			[]string{RungRetry, RungExplore, RungRollback, RungHuman, RungStop},
		},
		{"a short ladder", []string{RungRetry, RungStop}, nil, []string{RungRetry, RungStop}},
		{"no stop: exhausted after the last", []string{RungRetry, RungHuman}, none, nil},
		{"nothing after stop", []string{RungRetry, RungStop, RungHuman}, nil, []string{RungRetry, RungStop}},
		{"empty", nil, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLadder(tc.rungs)
			require.Equal(t, tc.want, climbAll(l, tc.available))
			require.True(t, l.Exhausted())
			r, ok := l.Climb(nil)
			require.False(t, ok, "an exhausted ladder stays exhausted")
			require.Empty(t, r)
		})
	}
}

// A skipped rung is not offered again within the climb, even if it
// becomes available; Reset starts from the bottom.
func TestLadderSkipsAndResets(t *testing.T) {
	handoffs := false
	available := func(r string) bool { return r != RungHandoff || handoffs }
	l := NewLadder([]string{RungRetry, RungHandoff, RungHuman, RungStop})

	r, ok := l.Climb(available)
	require.True(t, ok)
	require.Equal(t, RungRetry, r)
	r, _ = l.Climb(available)
	require.Equal(t, RungHuman, r, "handoff skipped")
	handoffs = true
	r, _ = l.Climb(available)
	require.Equal(t, RungStop, r)

	l.Reset()
	require.False(t, l.Exhausted())
	require.Equal(t, []string{RungRetry, RungHandoff, RungHuman, RungStop}, climbAll(l, available))
}

// The ladder resumes where it was after continue-as-new, and a decoded
// Next out of range neither panics nor skips the ladder.
func TestLadderJSON(t *testing.T) {
	l := NewLadder(config.DefaultEscalation())
	l.Climb(nil)
	l.Climb(nil)
	raw, err := json.Marshal(l)
	require.NoError(t, err)
	require.JSONEq(t, `{"rungs":["retry","substitute","explore","rollback","handoff","human","stop"],"next":2}`, string(raw))
	var back Ladder
	require.NoError(t, json.Unmarshal(raw, &back))
	r, _ := back.Climb(nil)
	require.Equal(t, RungExplore, r)

	neg := Ladder{Rungs: []string{RungRetry, RungStop}, Next: -7}
	r, ok := neg.Climb(nil)
	require.True(t, ok)
	require.Equal(t, RungRetry, r)
	far := Ladder{Rungs: []string{RungRetry, RungStop}, Next: 99}
	_, ok = far.Climb(nil)
	require.False(t, ok)
}

// NewLadder copies the rungs: the config's slice is never changed.
func TestNewLadderCopies(t *testing.T) {
	rungs := []string{RungRetry, RungStop}
	l := NewLadder(rungs)
	l.Rungs[0] = RungHuman
	require.Equal(t, RungRetry, rungs[0])
}
