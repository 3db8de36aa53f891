package workflows

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

// errFellBack: the request is asked again, of a fallback model.
var errFellBack = errors.New("asked again of a fallback model")

// fallBack turns the failed request reqID to the next model, if the
// agent has one for this failure, and says whether it did.
func (r *runner) fallBack(ctx workflow.Context, reqID string, err error) bool {
	run := r.run
	m := run.Spec.Model
	if len(m.Fallbacks) == 0 {
		return false
	}
	providers := []string{m.Provider}
	names := []string{m.Name}
	for _, fb := range m.Fallbacks {
		providers, names = append(providers, fb.Provider), append(names, fb.Name)
	}
	next := policies.NextModel(run.ModelAt, providers, modelFailure(err))
	if next < 0 || versionOf(ctx, versionModelFallback, 1) < 1 {
		return false
	}
	from, to := names[run.ModelAt], names[next]
	why := fmt.Sprintf("model %s failed (%s): the request goes to model %s", from, errorText(err), to)
	r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindEscalation, Status: signals.StatusCompleted, Parents: []string{reqID},
		Args:   mustJSON(map[string]any{"action": "model_fallback", "from": from, "to": to}),
		Output: mustJSON(why),
	}, Step: run.Step})
	run.ModelAt, run.ModelSince = next, workflow.Now(ctx)
	run.ModelFallbacks++
	r.count(ctx, MetricModelFallbacks, 1, "from", from, "to", to)
	workflow.GetLogger(ctx).Warn("model fallback", "request", reqID, "from", from, "to", to, "why", errorText(err))
	return true
}

// modelFailure is how the model activity failed, as policies.NextModel
// reads it.
func modelFailure(err error) policies.ModelFailure {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return policies.ModelFailure{
			Fatal:           app.Type() == activities.ModelRejectedError,
			ContextExceeded: app.Type() == activities.ModelContextExceededError,
		}
	}
	return policies.ModelFailure{} // a timeout: unavailable
}

// onFallbackFor is how long the run's requests stay with a fallback model:
// the model's fallback_cooldown. Runs recorded before fallback-cooldown
// borrowed the agent's tool breaker cooldown; the version is asked only
// on a fallback when the two differ.
func (r *runner) onFallbackFor(ctx workflow.Context) time.Duration {
	own, borrowed := r.run.Spec.Model.OnFallbackFor(), r.run.Spec.Agent.Policies.Breaker.Cooldown.D()
	if r.run.ModelAt == 0 || own == borrowed || versionOf(ctx, versionFallbackCooldown, 1) >= 1 {
		return own
	}
	return borrowed
}
