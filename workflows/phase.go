package workflows

import (
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// Search attribute keys the workflow keeps up to date, so runs can be
// listed by agent and phase (temporal workflow list --query ...).
var (
	AgentNameKey  = temporal.NewSearchAttributeKeyKeyword(signals.AttrAgentName)
	AgentPhaseKey = temporal.NewSearchAttributeKeyKeyword(signals.AttrAgentPhase)
)

// setPhase records the run's phase in the run and in the search attributes.
// Search attributes that already say so (set by the starter, carried
// across continue-as-new, or upserted before) are not upserted again: each
// upsert is a visibility write on the server.
func (r *runner) setPhase(ctx workflow.Context, phase signals.Phase) error {
	if phase == signals.PhaseRunning && r.parked.Status() != nil && versionOf(ctx, versionOutagePhase, 1) >= 1 {
		phase = signals.PhaseWaitingOutage // a call still waits out an outage once a person's wait ends
	}
	r.run.Phase = phase
	r.showDetails(ctx)
	name := keyword(r.run.Spec.Agent.Name)
	if phaseShown(ctx, name, phase) && versionOf(ctx, versionPhaseShown, 1) >= 1 {
		return nil
	}
	return workflow.UpsertTypedSearchAttributes(ctx,
		AgentNameKey.ValueSet(name),
		AgentPhaseKey.ValueSet(string(phase)),
	)
}

// phaseShown: the run's search attributes already name the agent and the
// phase.
func phaseShown(ctx workflow.Context, agent string, phase signals.Phase) bool {
	sa := workflow.GetTypedSearchAttributes(ctx)
	name, okName := sa.GetKeyword(AgentNameKey)
	shown, okPhase := sa.GetKeyword(AgentPhaseKey)
	return okName && okPhase && name == agent && shown == string(phase)
}

// StartAttributes are the search attributes a starter sets on a new run of
// agent, so the run need not upsert them in its first workflow task: the
// agent's name, and the phase a run starts in.
func StartAttributes(agent string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(
		AgentNameKey.ValueSet(keyword(agent)),
		AgentPhaseKey.ValueSet(string(signals.PhaseRunning)),
	)
}

// markRefused lists a run refused at start (bad input, unknown agent)
// under the agent it named, as stopped, so `AgentPhase = 'stopped'` finds
// it too.
func markRefused(ctx workflow.Context, agent string) {
	if strings.TrimSpace(agent) == "" {
		return
	}
	_ = workflow.UpsertTypedSearchAttributes(ctx,
		AgentNameKey.ValueSet(keyword(agent)),
		AgentPhaseKey.ValueSet(string(signals.PhaseStopped)),
	)
}

// keyword bounds a search attribute value: the server refuses long ones,
// and a refused upsert would fail every workflow task of the run.
func keyword(s string) string {
	return policies.CutText(s, 255)
}
