package activities

import (
	"errors"
	"fmt"
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
// that is down is asked a bounded number of times, not once per run.
type modelBreakers struct {
	mu      sync.Mutex
	byModel map[string]*policies.Breaker
}

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
// trial it may have held, which would otherwise keep the model refused on
// this worker for good.
func (w *modelBreakers) record(m config.Model, now time.Time, reply *ModelReply, err error) {
	if w == nil {
		return
	}
	var app *temporal.ApplicationError
	answered := err == nil && reply != nil && reply.OverBudget == nil && reply.OverSpend == nil
	refused := err != nil && errors.As(err, &app) && app.Type() != ModelUnavailableError
	unavailable := err != nil && errors.As(err, &app) && app.Type() == ModelUnavailableError
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
func (w *modelBreakers) breaker(m config.Model) *policies.Breaker {
	if w.byModel == nil {
		w.byModel = map[string]*policies.Breaker{}
	}
	bounds := m.ModelBreaker()
	b, ok := w.byModel[modelKey(m)]
	if !ok {
		b = policies.NewBreaker(bounds.Failures, bounds.Cooldown.D())
		w.byModel[modelKey(m)] = b
	}
	b.Threshold, b.Cooldown = bounds.Failures, bounds.Cooldown.D()
	return b
}

// release gives up the half-open trial a request that was never sent
// may have held: it proved nothing of the model.
func (w *modelBreakers) release(m config.Model) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.breaker(m).Release()
}
