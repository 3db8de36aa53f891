package handoff

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies"
)

// registryWindow is how far back an agent's success rate is read.
const registryWindow = 24 * time.Hour

// candidates is the registry with the live load and success rate of each
// agent the choice may weigh them for (policies.NeedsLoad), read by an
// activity; the others are refused before their figures count. Without
// figures (no visibility, the server busy) the choice goes on without
// them, and note says so.
func (h *Handoffs) candidates(ctx workflow.Context, ask policies.HandoffAsk) ([]policies.HandoffCandidate, string) {
	registry := h.host.Spec().Registry
	var all, names []string
	for _, p := range registry {
		all = append(all, p.Name)
		if policies.NeedsLoad(ask, policies.HandoffCandidate{Name: p.Name, Human: p.Human()}) {
			names = append(names, p.Name)
		}
	}
	// The activity's input changes: version handoff-loads, asked only
	// when the lists differ.
	if len(names) < len(all) && h.version(ctx, h.gates.Loads, 1) < 1 {
		names = all
	}
	req := activities.RegistryRequest{Agents: names, Window: registryWindow, Namespace: workflow.GetInfo(ctx).Namespace}
	loads, err := h.host.Loads(ctx, req)
	note := ""
	if err != nil && len(names) > 0 {
		note = "the agents' load could not be read, so capacity and success rates were not weighed: " + h.errorText(err)
	}
	byName := map[string]activities.AgentLoad{}
	for _, l := range loads {
		byName[l.Agent] = l
	}
	out := make([]policies.HandoffCandidate, 0, len(registry))
	for _, p := range registry {
		l, ok := byName[p.Name]
		rate := -1.0
		if ok {
			rate = l.SuccessRate()
		}
		out = append(out, policies.HandoffCandidate{
			Name: p.Name, Description: p.Description, Capabilities: p.Capabilities, Tier: p.Tier, Human: p.Human(),
			MaxConcurrent: p.MaxConcurrent, Running: l.Running, SuccessRate: rate,
		})
	}
	return out, note
}
