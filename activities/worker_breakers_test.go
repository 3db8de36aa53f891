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
// retryable) until the cooldown, lets one trial through, and a success
// closes it; a bad argument or a cancelled call does not count.
func TestWorkerBreakerOpensRefusesAndRecovers(t *testing.T) {
	w := newWorkerBreakers(nil)
	w.policy["t"] = config.BreakerPolicy{Failures: 2, Cooldown: config.Duration(time.Minute)}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	require.NoError(t, w.allow("t", now))
	w.record("t", now, policies.InvalidArgs, false)
	w.record("t", now, policies.Transient, false)
	require.NoError(t, w.allow("t", now), "one failure of the tool and one bad argument: still closed")
	w.record("t", now, policies.Transient, false)
	err := w.allow("t", now.Add(time.Second))
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app))
	require.Equal(t, CircuitOpenError, app.Type())
	require.True(t, app.NonRetryable())
	require.Contains(t, app.Message(), "tool t failed 2 times in a row across runs")
	require.NoError(t, w.allow("other", now), "other tools are not held")

	later := now.Add(2 * time.Minute)
	require.NoError(t, w.allow("t", later), "the trial call")
	require.Error(t, w.allow("t", later), "one trial at a time")
	w.record("t", later, policies.Canceled, false)
	require.NoError(t, w.allow("t", later), "a cancelled trial gives its turn up")
	w.record("t", later, "", true)
	require.NoError(t, w.allow("t", later))
	require.NoError(t, w.allow("t", later), "closed again")
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
	w := newWorkerBreakers(nil)
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	w.record("flaky", now, "", true)
	for range config.DefaultFailures {
		w.record("flaky", now, policies.Transient, false)
	}
	require.NoError(t, w.allow("flaky", now), "five failures in a row after a success: closed")
	for range policies.FleetWindow - config.DefaultFailures {
		w.record("flaky", now, policies.Transient, false)
	}
	err := w.allow("flaky", now)
	require.Error(t, err, "dead since: cut")
	require.Contains(t, err.Error(), "failed 32 times in a row across runs")
}
