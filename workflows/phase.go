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
func (r *runner) setPhase(ctx workflow.Context, phase signals.Phase) error {
	r.run.Phase = phase
	r.showDetails(ctx)
	return workflow.UpsertTypedSearchAttributes(ctx,
		AgentNameKey.ValueSet(keyword(r.run.Spec.Agent.Name)),
		AgentPhaseKey.ValueSet(string(phase)),
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
