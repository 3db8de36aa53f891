package policies

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A breaker step: at offset `at` from t0, either ask Allow (want says the
// answer) or record a result; then the state it must be in.
type breakerStep struct {
	at    time.Duration
	op    string // allow, ok, fail, error:<class>, trip
	allow bool
	state string
}

func runBreaker(t *testing.T, b *Breaker, steps []breakerStep) {
	t.Helper()
	t0 := time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)
	for i, s := range steps {
		now := t0.Add(s.at)
		switch s.op {
		case "allow":
			require.Equal(t, s.allow, b.Allow(now), "step %d: Allow at +%s", i, s.at)
		case "ok":
			b.Record(now, true)
		case "fail":
			b.Record(now, false)
		case "trip":
			b.Trip(now)
		default:
			b.RecordError(now, Class(s.op[len("error:"):]))
		}
		require.Equal(t, s.state, b.State, "step %d (%s at +%s)", i, s.op, s.at)
		// Across continue-as-new the breaker is JSON: it must come back equal.
		raw, err := json.Marshal(b)
		require.NoError(t, err)
		var back Breaker
		require.NoError(t, json.Unmarshal(raw, &back))
		require.True(t, back.OpenedAt.Equal(b.OpenedAt))
		back.OpenedAt = b.OpenedAt
		require.Equal(t, *b, back, "step %d: JSON round trip", i)
	}
}

func TestBreakerTransitions(t *testing.T) {
	const sec = time.Second
	cases := []struct {
		name  string
		steps []breakerStep
	}{
		{
			name: "failures below the threshold keep it closed; a success clears them",
			steps: []breakerStep{
				{0, "fail", false, BreakerClosed}, {sec, "fail", false, BreakerClosed},
				{2 * sec, "ok", false, BreakerClosed},
				{3 * sec, "fail", false, BreakerClosed}, {4 * sec, "fail", false, BreakerClosed},
				{5 * sec, "allow", true, BreakerClosed},
			},
		},
		{
			name: "three in a row open it; it refuses until the cooldown has passed",
			steps: []breakerStep{
				{0, "fail", false, BreakerClosed}, {sec, "fail", false, BreakerClosed}, {2 * sec, "fail", false, BreakerOpen},
				{3 * sec, "allow", false, BreakerOpen},
				{31*sec + 999*time.Millisecond, "allow", false, BreakerOpen},
				{32 * sec, "allow", true, BreakerHalfOpen},  // exactly the cooldown: the trial
				{32 * sec, "allow", false, BreakerHalfOpen}, // one trial at a time
				{33 * sec, "ok", false, BreakerClosed},
				{33 * sec, "allow", true, BreakerClosed},
			},
		},
		{
			name: "a failed trial opens it again for a new cooldown",
			steps: []breakerStep{
				{0, "fail", false, BreakerClosed}, {0, "fail", false, BreakerClosed}, {0, "fail", false, BreakerOpen},
				{40 * sec, "allow", true, BreakerHalfOpen},
				{41 * sec, "fail", false, BreakerOpen},
				{70 * sec, "allow", false, BreakerOpen}, // 29s after the new OpenedAt
				{71 * sec, "allow", true, BreakerHalfOpen},
				{72 * sec, "ok", false, BreakerClosed},
			},
		},
		{
			name: "invalid arguments are the model's fault: not counted",
			steps: []breakerStep{
				{0, "fail", false, BreakerClosed}, {0, "fail", false, BreakerClosed},
				{sec, "error:invalid_args", false, BreakerClosed},
				{sec, "error:invalid_args", false, BreakerClosed},
				{sec, "error:invalid_args", false, BreakerClosed},
				{2 * sec, "error:transient", false, BreakerOpen}, // the third of the tool's own
			},
		},
		{
			name: "every other class counts",
			steps: []breakerStep{
				{0, "error:transient", false, BreakerClosed},
				{0, "error:persistent", false, BreakerClosed},
				{0, "error:fatal", false, BreakerOpen},
			},
		},
		{
			name: "an invalid_args trial proved nothing: the next call is the trial",
			steps: []breakerStep{
				{0, "fail", false, BreakerClosed}, {0, "fail", false, BreakerClosed}, {0, "fail", false, BreakerOpen},
				{30 * sec, "allow", true, BreakerHalfOpen},
				{30 * sec, "allow", false, BreakerHalfOpen},
				{31 * sec, "error:invalid_args", false, BreakerHalfOpen},
				{31 * sec, "allow", true, BreakerHalfOpen},
				{32 * sec, "error:transient", false, BreakerOpen},
			},
		},
		{
			name: "late results while open change nothing but the count",
			steps: []breakerStep{
				{0, "fail", false, BreakerClosed}, {0, "fail", false, BreakerClosed}, {0, "fail", false, BreakerOpen},
				{sec, "ok", false, BreakerOpen},
				{2 * sec, "fail", false, BreakerOpen},
				{29 * sec, "allow", false, BreakerOpen}, // the late failure did not move OpenedAt
				{30 * sec, "allow", true, BreakerHalfOpen},
			},
		},
		{
			name: "trip opens it on purpose",
			steps: []breakerStep{
				{0, "trip", false, BreakerOpen},
				{10 * sec, "allow", false, BreakerOpen},
				{30 * sec, "allow", true, BreakerHalfOpen},
				{30 * sec, "ok", false, BreakerClosed},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runBreaker(t, NewBreaker(3, 30*time.Second), tc.steps)
		})
	}
}

func TestBreakerCounts(t *testing.T) {
	b := NewBreaker(3, time.Minute)
	now := time.Unix(0, 0)
	b.Record(now, false)
	b.Record(now, false)
	require.Equal(t, 2, b.Failures)
	b.RecordError(now, InvalidArgs)
	require.Equal(t, 2, b.Failures, "invalid_args neither counts nor clears")
	b.Record(now, true)
	require.Equal(t, 0, b.Failures)
	b.Trip(now)
	require.Equal(t, 1, b.Failures, "a tripped breaker has a failure")
	require.True(t, b.OpenedAt.Equal(now))
}

// Bad limits and the zero value are valid breakers.
func TestBreakerNormalises(t *testing.T) {
	b := NewBreaker(0, -time.Second)
	require.Equal(t, 1, b.Threshold)
	require.Equal(t, time.Duration(0), b.Cooldown)
	require.Equal(t, BreakerClosed, b.State)
	b.Record(time.Unix(0, 0), false)
	require.Equal(t, BreakerOpen, b.State, "threshold 1: the first failure opens it")
	require.True(t, b.Allow(time.Unix(0, 0)), "cooldown 0: the trial at once")

	var zero Breaker
	require.True(t, zero.Allow(time.Unix(0, 0)))
	require.Equal(t, BreakerClosed, zero.State)

	odd := Breaker{State: "jammed", Failures: -4, Trial: true}
	require.True(t, odd.Allow(time.Unix(0, 0)))
	require.Equal(t, BreakerClosed, odd.State)
	require.Equal(t, 0, odd.Failures)

	open := Breaker{State: BreakerOpen}
	open.Allow(time.Unix(0, 0))
	require.Equal(t, 1, open.Failures, "never open without failures")
}
