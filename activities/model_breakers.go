package activities

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// ModelCircuitOpenError is the application error type of a model request
// the worker's breaker of that model refused: its last attempts, across
// the runs on this worker, found it unavailable. With a fallback model to
// turn to, the refusal is not retried (the run turns to it at once);
// without one, it is retried once the breaker's cooldown has passed.
const ModelCircuitOpenError = "ModelCircuitOpen"

// modelBreakers are the worker's breakers of its model endpoints (one per
// endpoint and model name), shared by every run it serves: a provider
// that is down is asked a bounded number of times, not once per run, and
// one that comes back is sent one request, then more as they are answered
// (policies.RampBreaker, to policies.RampBound(0)), not every run's at
// once.
type modelBreakers struct {
	mu      sync.Mutex
	byModel map[string]*policies.RampBreaker
}

// rampRetry: a request the ramp had no room for is retried after
// rampRetry to twice that, spread so the refused do not come back
// together. The ramp makes room as requests are answered, in seconds, not
// in a cooldown.
const rampRetry = time.Second

func modelKey(m config.Model) string { return m.Name + "@" + m.BaseURL }

// allow is the gate before a request; hasFallback says whether the run
// has another model to turn to.
func (w *modelBreakers) allow(m config.Model, now time.Time, hasFallback bool) error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.breaker(m)
	if b.Allow(now) {
		return nil
	}
	left := b.OpenedAt.Add(b.Cooldown).Sub(now)
	msg := fmt.Sprintf("circuit open on this worker: model %q was unavailable %d times in a row across runs; it is left alone for %s",
		m.Name, b.Failures, left.Round(time.Second))
	if b.State == policies.BreakerHalfOpen {
		left = rampRetry + rand.N(rampRetry)
		msg = fmt.Sprintf("circuit half open on this worker: model %q is coming back, and %s", m.Name, rampSaid(*b))
	}
	if hasFallback {
		return temporal.NewNonRetryableApplicationError(msg, ModelCircuitOpenError, nil)
	}
	return temporal.NewApplicationErrorWithOptions(msg, ModelCircuitOpenError, temporal.ApplicationErrorOptions{NextRetryDelay: left})
}

// record takes a request's outcome. The model being unavailable counts
// against its breaker; any answer counts for it, a refusal too (a bad
// request, a prompt too long, a bad key: the endpoint answered, so it
// serves). A request not sent (counted over its prompt's bound) or
// abandoned (cancelled) proved nothing: it only gives up the half-open
// trial it may have held, whose place would otherwise stay taken on this
// worker for good.
func (w *modelBreakers) record(m config.Model, now time.Time, reply *ModelReply, err error) {
	if w == nil {
		return
	}
	var app *temporal.ApplicationError
	answered := err == nil && reply != nil && reply.OverBudget == nil && reply.OverSpend == nil
	refused := err != nil && errors.As(err, &app) && !ModelDidNotAnswer(app.Type())
	unavailable := err != nil && errors.As(err, &app) && ModelDidNotAnswer(app.Type())
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.breaker(m)
	switch {
	case unavailable:
		b.Record(now, false)
	case answered || refused:
		b.Record(now, true)
	default:
		b.Release()
	}
}

// breaker is the breaker of m's endpoint, with the bounds of m's config
// (model.breaker): the config's block that asked last sets them.
func (w *modelBreakers) breaker(m config.Model) *policies.RampBreaker {
	if w.byModel == nil {
		w.byModel = map[string]*policies.RampBreaker{}
	}
	bounds := m.ModelBreaker()
	b, ok := w.byModel[modelKey(m)]
	if !ok {
		b = policies.NewRampBreaker(bounds.Failures, bounds.Cooldown.D(), policies.RampBound(0))
		w.byModel[modelKey(m)] = b
	}
	b.Threshold, b.Cooldown = bounds.Failures, bounds.Cooldown.D()
	return b
}

// release gives up the place in the ramp a request that was never sent
// may have held: it proved nothing of the model.
func (w *modelBreakers) release(m config.Model) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.breaker(m).Release()
}
