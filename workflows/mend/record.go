package mend

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies/repair"
	"github.com/unstuck-dev/unstuck/signals"
)

// The repairs' counters (workflows lists them with the run's others).
const (
	// MetricRepairs counts argument repairs made by rule; tag rule.
	MetricRepairs = "unstuck_repairs"
	// MetricRepairsByModel counts focused model repair requests; tag
	// outcome (repaired, refused, failed).
	MetricRepairsByModel = "unstuck_repairs_by_model"
)

// record records one repair attempt of call callID in the trace, and
// answers its node's id.
func (m *Mender) record(ctx workflow.Context, callID, tool string, before, after json.RawMessage, res repair.Result, errText string) string {
	strategies := []map[string]any{}
	for _, a := range res.Repairs {
		strategies = append(strategies, map[string]any{"strategy": a.Strategy, "path": a.Path, "before": a.Before, "after": a.After, "reason": a.Reason})
	}
	out := map[string]any{"repairs": strategies, "reason": res.Reason}
	if after != nil {
		out["args"] = after
	}
	status := signals.StatusCompleted
	if errText != "" {
		status = signals.StatusFailed
	}
	id := m.host.AddNode(ctx, signals.Node{
		Kind: signals.KindRepair, Status: status, Parents: []string{callID},
		Tool: tool, Args: before, Output: m.host.JSON(out), Error: errText,
	})
	m.countRules(ctx, res)
	return id
}

// countRules counts the rules a repair applied (a model's repair is
// counted by countModel).
func (m *Mender) countRules(ctx workflow.Context, res repair.Result) {
	for _, a := range res.Repairs {
		if a.Strategy != modelStrategy {
			m.host.Count(ctx, MetricRepairs, 1, "rule", a.Strategy)
		}
	}
}

// countModel counts one focused model repair request by outcome.
func (m *Mender) countModel(ctx workflow.Context, outcome string) {
	m.host.Count(ctx, MetricRepairsByModel, 1, "outcome", outcome)
}
