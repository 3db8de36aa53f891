package mend

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies/repair"
	"github.com/unstuck-dev/unstuck/signals"
)

// Text reads a call's arguments that are not a JSON object (a JSON string
// holding one, lenient JSON) by repair.RepairText, when repair is on and
// the call has a repair attempt left; the repair node records what was
// read. ok is false when nothing was read: the call fails as before.
func (m *Mender) Text(ctx workflow.Context, node string, tc activities.ToolCall) (json.RawMessage, bool) {
	if m.Left(node) <= 0 || !m.host.KnownTool(tc.Name) {
		return nil, false
	}
	res := repair.RepairText(tc.Args)
	if res.JSON == nil || m.host.Version(ctx, GateWholeArguments) == workflow.DefaultVersion {
		return nil, false
	}
	m.at.add(node)
	m.record(ctx, node, tc.Name, m.shown(tc.Args), res.JSON,
		repair.Result{Valid: true, Repairs: res.Repairs, Reason: "arguments read as a JSON object"}, "")
	return res.JSON, true
}

// Reads says whether Text would read a call of tool name with args
// whole: the agent repairs, the tool is its own and the rules read them.
func (m *Mender) Reads(name, args string) bool {
	return m.host.Spec().Agent.Policies.Repair.MaxAttempts > 0 && m.host.KnownTool(name) &&
		repair.RepairText(args).JSON != nil
}

// shown is text as a repair node shows it: as it is when it is JSON, else
// as a JSON string.
func (m *Mender) shown(text string) json.RawMessage {
	if json.Valid([]byte(text)) {
		return json.RawMessage(text)
	}
	return m.host.JSON(text)
}

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
