package model

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// A model request whose retries are spent goes to the agent's next
// fallback model (model.fallbacks) instead of stopping the run: the
// choice is policies.NextModel's, each switch is an escalation node
// naming from, to and why, and the run's later requests go to the
// fallback until the model's fallback_cooldown has passed
// (policies.ModelToAsk). The workflow knows the models by name and
// provider only; the activity looks the endpoint and key up.

// Choose turns the run back to its own model when its fallback's
// cooldown has passed; asked before each request.
func (c *Call) Choose(ctx workflow.Context) {
	c.s.ModelAt = policies.ModelToAsk(c.s.ModelAt, c.s.ModelSince, workflow.Now(ctx), c.onFallbackFor(ctx))
}

// FallBack turns the failed request reqID to the next model, if the
// agent has one for this failure, and says whether it did.
func (c *Call) FallBack(ctx workflow.Context, reqID string, err error) bool {
	m := c.spec.Model
	if len(m.Fallbacks) == 0 {
		return false
	}
	providers := []string{m.Provider}
	names := []string{m.Name}
	for _, fb := range m.Fallbacks {
		providers, names = append(providers, fb.Provider), append(names, fb.Name)
	}
	next := policies.NextModel(c.s.ModelAt, providers, failure(err))
	if next < 0 || c.version(ctx, c.gates.ModelFallback, 1) < 1 {
		return false
	}
	from, to := names[c.s.ModelAt], names[next]
	why := fmt.Sprintf("model %s failed (%s): the request goes to model %s", from, c.errText(err), to)
	c.run.AddNode(ctx, signals.Node{
		Kind: signals.KindEscalation, Status: signals.StatusCompleted, Parents: []string{reqID},
		Args:   mustJSON(map[string]any{"action": "model_fallback", "from": from, "to": to}),
		Output: mustJSON(why),
	})
	c.s.ModelAt, c.s.ModelSince = next, workflow.Now(ctx)
	c.s.ModelFallbacks++
	c.run.Count(ctx, c.metrics.Fallbacks, 1, "from", from, "to", to)
	workflow.GetLogger(ctx).Warn("model fallback", "request", reqID, "from", from, "to", to, "why", c.errText(err))
	return true
}

// Down says whether the failed request found the model down (and no
// fallback took it): the run waits the outage out (policies.ModelDown).
func (c *Call) Down(err error) bool { return policies.ModelDown(failure(err)) }

// AfterOutage turns the run back to its own model once it waited out an
// outage of every model it has: the next request tries them in order.
func (c *Call) AfterOutage() { c.s.ModelAt = 0 }

// failure is what policies.NextModel and policies.ModelDown read of a
// failed request: its application error type, or a timeout.
func failure(err error) policies.ModelFailure {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return policies.ModelFailure{
			Fatal:           app.Type() == activities.ModelRejectedError,
			ContextExceeded: app.Type() == activities.ModelContextExceededError,
			Unavailable:     activities.ModelDidNotAnswer(app.Type()),
		}
	}
	var timeout *temporal.TimeoutError
	return policies.ModelFailure{Unavailable: errors.As(err, &timeout)} // a timeout: unavailable to NextModel either way
}

// onFallbackFor is how long the run's requests stay with a fallback model:
// the model's fallback_cooldown. Runs recorded before fallback-cooldown
// borrowed the agent's tool breaker cooldown; the version is asked only
// on a fallback when the two differ.
func (c *Call) onFallbackFor(ctx workflow.Context) time.Duration {
	own, borrowed := c.spec.Model.OnFallbackFor(), c.spec.Agent.Policies.Breaker.Cooldown.D()
	if c.s.ModelAt == 0 || own == borrowed || c.on(ctx, c.gates.FallbackCooldown) {
		return own
	}
	return borrowed
}
