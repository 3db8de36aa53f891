package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// Search attribute keys the workflow keeps up to date, so runs can be
// listed by agent and phase (temporal workflow list --query ...).
var (
	AgentNameKey  = temporal.NewSearchAttributeKeyKeyword(signals.AttrAgentName)
	AgentPhaseKey = temporal.NewSearchAttributeKeyKeyword(signals.AttrAgentPhase)
)

// setPhase records the run's phase in the run and in the search attributes.
func (r *runner) setPhase(ctx workflow.Context, phase string) error {
	r.run.Phase = phase
	return workflow.UpsertTypedSearchAttributes(ctx,
		AgentNameKey.ValueSet(r.run.Spec.Agent.Name),
		AgentPhaseKey.ValueSet(phase),
	)
}
