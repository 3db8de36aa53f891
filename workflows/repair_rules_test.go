package workflows

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
)

// A number as people write it is repaired by rule in a new run, without a
// model request; the rule and the values are in the repair node.
func TestWrittenNumberRepairedByRule(t *testing.T) {
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k", "typed", `{"n": "1,250,000"}`)}},
		{Content: "ok"},
	}, echoTool)
	asked := 0
	h.before() // a run that asks each change on its own
	h.env.OnGetVersion(versionRepairValues, workflow.DefaultVersion, 1).Run(func(mock.Arguments) { asked++ }).Return(workflow.Version(1))
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.JSONEq(t, `{"n":1250000}`, string(h.toolReqs[0].Args))
	require.Empty(t, h.repairReqs)
	require.Positive(t, asked, "the rule sets differ here: the run's version decides")
	rn := repairNodes(h.trace())
	require.Len(t, rn, 1)
	var out struct {
		Repairs []map[string]any `json:"repairs"`
	}
	require.NoError(t, json.Unmarshal(rn[0].Output, &out))
	require.Len(t, out.Repairs, 1)
	require.Equal(t, "read_number", out.Repairs[0]["strategy"])
	require.Equal(t, "1,250,000", out.Repairs[0]["before"])
	require.EqualValues(t, 1250000, out.Repairs[0]["after"])
}

// A run started before repair-values keeps the first rules: the same
// call goes to the model, as its recorded history says.
func TestWrittenNumberBeforeRepairValuesGoesToTheModel(t *testing.T) {
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k", "typed", `{"n": "1,250,000"}`)}},
		{Content: "ok"},
	}, echoTool)
	h.before(versionRepairValues)
	h.repairModel = func(activities.RepairRequest) (json.RawMessage, error) { return json.RawMessage(`{"n": 1250000}`), nil }
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Len(t, h.repairReqs, 1, "the first rules do not read 1,250,000")
	require.JSONEq(t, `{"n":1250000}`, string(h.toolReqs[0].Args))
}

// A call both rule sets repair alike asks no version: runs that never
// meet the new rules record no marker.
func TestRepairAlikeAsksNoVersion(t *testing.T) {
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k", "typed", `{"n": "3"}`)}},
		{Content: "ok"},
	}, echoTool)
	asked := 0
	h.before() // a run that asks each change on its own
	h.env.OnGetVersion(versionRepairValues, workflow.DefaultVersion, 1).Run(func(mock.Arguments) { asked++ }).Return(workflow.Version(1)).Maybe()
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.JSONEq(t, `{"n":3}`, string(h.toolReqs[0].Args))
	require.Zero(t, asked)
}
