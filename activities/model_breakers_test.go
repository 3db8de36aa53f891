package activities

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

var (
	errUnavailable = temporal.NewApplicationError("HTTP 503", ModelUnavailableError)
	errRejected    = temporal.NewNonRetryableApplicationError("HTTP 400", ModelRejectedError, nil)
)

// openModelBreaker is a worker's breaker of model m opened by
// unavailable attempts, its cooldown passed at the time it answers.
func openModelBreaker(t *testing.T, m config.Model) (*modelBreakers, time.Time) {
	w := &modelBreakers{}
	now := time.Unix(1_000_000, 0)
	for range config.DefaultFailures {
		require.NoError(t, w.allow(m, now, false))
		w.record(m, now, nil, errUnavailable)
	}
	require.Error(t, w.allow(m, now, true), "open")
	return w, now.Add(config.DefaultCooldown.D())
}

// Whatever comes of the half-open trial, the breaker decides or lets the
// next request be the trial: it never refuses the model for good. An
// answer moves the ramp on (two requests may go), not to every run's.
func TestAModelBreakersTrialAlwaysEnds(t *testing.T) {
	m := config.Model{Name: "gpt", BaseURL: "http://m/v1"}
	cases := []struct {
		name   string
		reply  *ModelReply
		err    error
		state  string
		passed int
	}{
		{"an answer moves the ramp on", &ModelReply{Content: "hi"}, nil, policies.BreakerHalfOpen, 1},
		{"a refusal is an answer: the endpoint serves", nil, errRejected, policies.BreakerHalfOpen, 1},
		{"unavailable opens it again", nil, errUnavailable, policies.BreakerOpen, 0},
		{"a prompt not sent proves nothing", &ModelReply{OverBudget: &PromptCount{Tokens: 9, Budget: 5}}, nil, policies.BreakerHalfOpen, 0},
		{"a prompt over the budget's bound proves nothing", &ModelReply{OverSpend: &PromptCount{Tokens: 9, Budget: 5}}, nil, policies.BreakerHalfOpen, 0},
		{"a cancelled request proves nothing", nil, context.Canceled, policies.BreakerHalfOpen, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, later := openModelBreaker(t, m)
			require.NoError(t, w.allow(m, later, true), "the trial")
			require.Error(t, w.allow(m, later, true), "one trial at a time")
			w.record(m, later, c.reply, c.err)
			b := w.breaker(m)
			require.Equal(t, c.state, b.State)
			require.Equal(t, c.passed, b.Passed)
			if c.state == policies.BreakerHalfOpen {
				for range 1 + c.passed {
					require.NoError(t, w.allow(m, later.Add(time.Hour), true), "the next requests are the trials")
				}
				require.Error(t, w.allow(m, later.Add(time.Hour), true))
			}
		})
	}
}

// The model comes back in a ramp: each answer lets one more request in
// flight, up to policies.RampBound(0), where the breaker closes. A request
// the ramp has no room for is retried in a second or two without a
// fallback (not after a cooldown), and turns to the fallback at once with
// one.
func TestAModelComesBackInARamp(t *testing.T) {
	m := config.Model{Name: "gpt", BaseURL: "http://m/v1"}
	w, later := openModelBreaker(t, m)
	require.NoError(t, w.allow(m, later, false), "the trial")
	err := w.allow(m, later, false)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	require.Equal(t, ModelCircuitOpenError, app.Type())
	require.False(t, app.NonRetryable())
	require.GreaterOrEqual(t, app.NextRetryDelay(), rampRetry)
	require.Less(t, app.NextRetryDelay(), 2*rampRetry)
	require.Contains(t, app.Message(), `circuit half open on this worker: model "gpt" is coming back, and its 1 in flight`)
	require.ErrorAs(t, w.allow(m, later, true), &app)
	require.True(t, app.NonRetryable(), "with a fallback, the run turns to it")

	for range policies.RampBound(0) - 1 {
		require.Equal(t, policies.BreakerHalfOpen, w.breaker(m).State)
		w.record(m, later, &ModelReply{Content: "hi"}, nil)
		require.NoError(t, w.allow(m, later, false), "its place")
		require.NoError(t, w.allow(m, later, false), "and one more")
	}
	require.Equal(t, policies.BreakerClosed, w.breaker(m).State)
}

// A refused request while closed clears the count of unavailable ones:
// the endpoint answered.
func TestARefusalResetsTheCountOfUnavailableAttempts(t *testing.T) {
	m := config.Model{Name: "gpt"}
	w := &modelBreakers{}
	now := time.Unix(0, 0)
	for range config.DefaultFailures - 1 {
		w.record(m, now, nil, errUnavailable)
	}
	w.record(m, now, nil, errRejected)
	w.record(m, now, nil, errUnavailable)
	require.NoError(t, w.allow(m, now, false))
	require.Equal(t, 1, w.breaker(m).Failures)
}

// A request the run cancelled fails like an unavailable model, but its
// outcome for the breaker is an abandoned one; a timeout stays the
// model's failure.
func TestAnAbandonedRequestProvesNothingOfTheModel(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, abandonedOr(cancelled, errUnavailable), context.Canceled)
	require.NoError(t, abandonedOr(cancelled, nil), "an answer that came first is an answer")
	timedOut, stop := context.WithTimeout(context.Background(), 0)
	defer stop()
	<-timedOut.Done()
	require.Equal(t, errUnavailable, abandonedOr(timedOut, errUnavailable))
	require.Equal(t, errUnavailable, abandonedOr(context.Background(), errUnavailable))

	m := config.Model{Name: "gpt", BaseURL: "http://m/v1"}
	w, later := openModelBreaker(t, m)
	require.NoError(t, w.allow(m, later, true), "the trial")
	w.record(m, later, nil, abandonedOr(cancelled, errUnavailable))
	require.Equal(t, policies.BreakerHalfOpen, w.breaker(m).State, "the trial abandoned by an edit leaves the breaker half open")
	require.NoError(t, w.allow(m, later, true), "and the next request is the trial")
}

// model.breaker sets the bounds of the worker's breaker of the model:
// here two unavailable attempts open it, for a minute.
func TestAModelsBreakerTakesItsBoundsFromTheConfig(t *testing.T) {
	m := config.Model{Name: "gpt", BaseURL: "http://m/v1", Breaker: &config.BreakerPolicy{Failures: 2, Cooldown: config.Duration(time.Minute)}}
	w := &modelBreakers{}
	now := time.Unix(0, 0)
	for range 2 {
		require.NoError(t, w.allow(m, now, false))
		w.record(m, now, nil, errUnavailable)
	}
	require.ErrorContains(t, w.allow(m, now, true), "it is left alone for 1m0s")
	require.Error(t, w.allow(m, now.Add(59*time.Second), true))
	require.NoError(t, w.allow(m, now.Add(time.Minute), true), "the trial, after the configured cooldown")
}
