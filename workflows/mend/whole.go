package mend

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies/repair"
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
