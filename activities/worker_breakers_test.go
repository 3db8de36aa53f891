package activities

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// The worker's breaker of a tool takes the strictest policy of the agents
// that may call it (a fallback included).
func TestWorkerBreakerPolicyIsTheStrictestAgents(t *testing.T) {
	cfg := &config.File{
		Tools: []config.Tool{{Name: "search", Fallback: "search2"}, {Name: "search2"}, {Name: "other"}},
		Agents: []config.Agent{
			{Name: "a", Tools: []string{"search"}, Policies: config.Policies{Breaker: config.BreakerPolicy{Failures: 5, Cooldown: config.Duration(10 * time.Second)}}},
			{Name: "b", Tools: []string{"search", "other"}, Policies: config.Policies{Breaker: config.BreakerPolicy{Failures: 2, Cooldown: config.Duration(time.Second)}}},
		},
	}
	w := newWorkerBreakers(cfg)
	require.Equal(t, config.BreakerPolicy{Failures: 2, Cooldown: config.Duration(10 * time.Second)}, w.policy["search"])
	require.Equal(t, config.BreakerPolicy{Failures: 2, Cooldown: config.Duration(10 * time.Second)}, w.policy["search2"], "the fallback of both agents' search")
	require.Equal(t, config.BreakerPolicy{Failures: 2, Cooldown: config.Duration(time.Second)}, w.policy["other"])
}

// The breaker opens after the failures, refuses with CircuitOpen (not
// retryable) until the cooldown, then lets one trial through, and more as
// they succeed; a bad argument or a cancelled call does not count.
func TestWorkerBreakerOpensRefusesAndRecovers(t *testing.T) {
	ctx := context.Background()
	w := newWorkerBreakers(nil)
	w.rampWait = 0
	w.policy["t"] = config.BreakerPolicy{Failures: 2, Cooldown: config.Duration(time.Minute)}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	require.NoError(t, w.allow(ctx, "t", now))
	w.record("t", now, policies.InvalidArgs, false)
	w.record("t", now, policies.Transient, false)
	require.NoError(t, w.allow(ctx, "t", now), "one failure of the tool and one bad argument: still closed")
	w.record("t", now, policies.Transient, false)
	requireCircuitOpen(t, w.allow(ctx, "t", now.Add(time.Second)), "tool t failed 2 times in a row across runs")
	require.NoError(t, w.allow(ctx, "other", now), "other tools are not held")

	later := now.Add(2 * time.Minute)
	require.NoError(t, w.allow(ctx, "t", later), "the trial call")
	requireCircuitOpen(t, w.allow(ctx, "t", later), "circuit half open on this worker: tool t is coming back, and its 1 in flight are as many as its recovery lets through now (0 answered since it came back; all go through once 32 may)")
	w.record("t", later, policies.Canceled, false)
	require.NoError(t, w.allow(ctx, "t", later), "a cancelled trial gives its place up")
	w.record("t", later, "", true)
	require.NoError(t, w.allow(ctx, "t", later))
	require.NoError(t, w.allow(ctx, "t", later), "a success lets two through")
	require.Error(t, w.allow(ctx, "t", later))
}

// A tool whose calls max_concurrent bounds ramps up to that bound: here
// three, so the first trial's success lets two through and the next
// success closes the breaker (three may be in flight).
func TestWorkerBreakerRampEndsAtMaxConcurrent(t *testing.T) {
	cfg := &config.File{
		Tools:  []config.Tool{{Name: "search", MaxConcurrent: 3}, {Name: "other"}},
		Agents: []config.Agent{{Name: "a", Tools: []string{"search", "other"}}},
	}
	ctx := context.Background()
	w := newWorkerBreakers(cfg)
	w.rampWait = 0
	require.Equal(t, map[string]int{"search": 3, "other": policies.FleetWindow}, w.ramp)
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for range config.DefaultFailures {
		w.record("search", now, policies.Transient, false)
	}
	later := now.Add(config.DefaultCooldown.D())
	require.NoError(t, w.allow(ctx, "search", later), "the trial")
	w.record("search", later, "", true)
	require.NoError(t, w.allow(ctx, "search", later))
	require.NoError(t, w.allow(ctx, "search", later))
	require.Error(t, w.allow(ctx, "search", later), "two in flight")
	w.record("search", later, "", true)
	require.Equal(t, policies.BreakerClosed, w.breaker("search").State)
}

// requireCircuitOpen: err is the worker's refusal, not retried, and says
// why.
func requireCircuitOpen(t *testing.T, err error, says string) {
	t.Helper()
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	require.Equal(t, CircuitOpenError, app.Type())
	require.True(t, app.NonRetryable())
	require.Contains(t, app.Message(), says)
}

func TestOutcomeClass(t *testing.T) {
	ctx := context.Background()
	require.Equal(t, policies.Persistent, outcomeClass(ctx, classed(policies.Persistent, "x", 0)))
	require.Equal(t, policies.Transient, outcomeClass(ctx, errors.New("boom")))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	require.Equal(t, policies.Canceled, outcomeClass(cctx, errors.New("boom")))
}

// A flaky tool is not a dead one: after it answered a call, the worker
// does not cut it for every run on five failures in a row across runs
// (none of which saw five), only on policies.FleetWindow of them.
func TestWorkerBreakerLeavesAFlakyToolToTheRuns(t *testing.T) {
	ctx := context.Background()
	w := newWorkerBreakers(nil)
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	w.record("flaky", now, "", true)
	for range config.DefaultFailures {
		w.record("flaky", now, policies.Transient, false)
	}
	require.NoError(t, w.allow(ctx, "flaky", now), "five failures in a row after a success: closed")
	for range policies.FleetWindow - config.DefaultFailures {
		w.record("flaky", now, policies.Transient, false)
	}
	err := w.allow(ctx, "flaky", now)
	require.Error(t, err, "dead since: cut")
	require.Contains(t, err.Error(), "failed 32 times in a row across runs")
}

// A call the ramp has no room for waits for a place: it goes when a trial
// is answered, and is refused when none is within rampWait or when its
// context ends first.
func TestWorkerBreakerCallWaitsForAPlaceInTheRamp(t *testing.T) {
	ctx := context.Background()
	w := newWorkerBreakers(nil)
	w.rampWait = time.Hour
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for range config.DefaultFailures {
		w.record("t", now, policies.Transient, false)
	}
	later := now.Add(config.DefaultCooldown.D())
	require.NoError(t, w.allow(ctx, "t", later), "the trial")
	admitted := make(chan error, 2)
	for range 2 {
		go func() { admitted <- w.allow(ctx, "t", later) }()
	}
	w.record("t", later, "", true) // the trial answered: two places
	require.NoError(t, <-admitted)
	require.NoError(t, <-admitted)

	cancelled, cancel := context.WithCancel(ctx)
	refused := make(chan error, 1)
	go func() { refused <- w.allow(cancelled, "t", later) }()
	cancel()
	requireCircuitOpen(t, <-refused, "circuit half open on this worker: tool t is coming back, and its 2 in flight are as many as its recovery lets through now (1 answered since it came back; all go through once 32 may); no place came in")

	w.rampWait = time.Millisecond
	requireCircuitOpen(t, w.allow(ctx, "t", later), "no place came in")

	w.rampWait = time.Hour
	w.waiting["t"] = policies.FleetWindow
	err := w.allow(ctx, "t", later)
	requireCircuitOpen(t, err, "circuit half open")
	require.NotContains(t, err.Error(), "no place came in", "as many wait as the ramp lets through: refused at once")
}
