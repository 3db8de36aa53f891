package workflows

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
)

// typedThree is a reply whose call of typed needs the model's judgement
// ("three" is no integer a rule reads), then the answer.
func typedThree(usage activities.ModelReply) []activities.ModelReply {
	first := usage
	first.ToolCalls = []activities.ToolCall{call("k", "typed", `{"n": "three"}`)}
	return []activities.ModelReply{first, {Content: "done"}}
}

func repairsToThree(activities.RepairRequest) (json.RawMessage, error) {
	return json.RawMessage(`{"n": 3}`), nil
}

// The focused repair request is a model request: the run's spend counts
// its tokens, in the run's total and its agent's share.
func TestAModelRepairIsCounted(t *testing.T) {
	h := newHarness(t, echoSpec(), typedThree(activities.ModelReply{InputTokens: 100, OutputTokens: 10}), echoTool)
	h.repairModel = repairsToThree
	h.repairUsage = activities.RepairReply{InputTokens: 40, OutputTokens: 5, Estimated: true}
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Len(t, h.repairReqs, 1)
	require.True(t, h.repairReqs[0].WithUsage)
	require.Zero(t, h.repairReqs[0].SpendTokens, "no budget: no bound")
	require.Equal(t, int64(3), res.Spend.ModelRequests, "two replies and the repair")
	require.Equal(t, int64(140), res.Spend.InputTokens)
	require.Equal(t, int64(15), res.Spend.OutputTokens)
	require.Equal(t, int64(1), res.Spend.Estimated)
	require.Equal(t, int64(3), res.Spend.ByAgent["agent"].ModelRequests)
}

// A repair answered without a call of the tool was paid all the same.
func TestAModelRepairWithoutACallIsCounted(t *testing.T) {
	h := newHarness(t, echoSpec(), typedThree(activities.ModelReply{}), echoTool)
	h.repairModel = func(activities.RepairRequest) (json.RawMessage, error) { return nil, nil }
	h.repairUsage = activities.RepairReply{InputTokens: 40, OutputTokens: 5}
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.NotEmpty(t, h.repairReqs)
	require.Empty(t, h.toolReqs)
	require.Equal(t, int64(2+len(h.repairReqs)), res.Spend.ModelRequests)
	require.Equal(t, int64(40*len(h.repairReqs)), res.Spend.InputTokens)
	rn := repairNodes(h.trace())
	require.Contains(t, rn[0].Error, activities.NoRepairCall("typed"))
}

// Over the budget, no model repair: the call's error goes back to the
// model as without one, and the next request takes the budget rung.
func TestAModelRepairOverTheBudgetIsNotAsked(t *testing.T) {
	h := newHarness(t, budgetSpec(config.Budget{ModelRequests: ptr(1)}, "stop"), typedThree(activities.ModelReply{}), echoTool)
	h.repairModel = repairsToThree
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	rep := stopReport(t, err)
	require.Empty(t, h.repairReqs, "the repair would have crossed model_requests")
	require.Empty(t, h.toolReqs)
	require.Contains(t, rep.Reason, "the budget's model_requests would be crossed: 1 spent, 1 more needed, limit 1")
	require.Equal(t, int64(1), rep.Spend.ModelRequests)
}

// Within the budget, the repair's prompt is bounded by what it leaves.
func TestAModelRepairWithinTheBudgetIsBounded(t *testing.T) {
	h := newHarness(t, budgetSpec(config.Budget{InputTokens: ptr(1000)}, "stop"), typedThree(activities.ModelReply{InputTokens: 300}), echoTool)
	h.repairModel = repairsToThree
	h.repairUsage = activities.RepairReply{InputTokens: 50}
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Len(t, h.repairReqs, 1)
	require.Equal(t, 700, h.repairReqs[0].SpendTokens)
	require.Equal(t, int64(350), res.Spend.InputTokens, "the reply and the repair")
}

// Runs recorded before version repair-spend ask for the arguments alone
// and count nothing of the repair.
func TestAModelRepairOfAnEarlierVersionIsNotCounted(t *testing.T) {
	h := newHarness(t, echoSpec(), typedThree(activities.ModelReply{}), echoTool)
	h.before(versionRepairSpend)
	h.repairModel = repairsToThree
	h.repairUsage = activities.RepairReply{InputTokens: 40}
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.False(t, h.repairReqs[0].WithUsage)
	require.JSONEq(t, `{"n":3}`, string(h.toolReqs[0].Args))
	require.Equal(t, int64(2), res.Spend.ModelRequests)
}

// fellBack makes h's run fall back from its model (refused) to b, of
// another provider, at its first request.
func fellBack(h *harness, spec *config.Resolved) {
	spec.Model.Provider = "p"
	spec.Model.Fallbacks = []config.ModelFallback{{Name: "b", Provider: "q"}}
	spec.Pricing = &config.Pricing{Currency: "USD", Models: map[string]config.TokenCost{spec.Model.Name: {Input: 1}, "b": {Input: 1000}}}
	h.downModels = map[int]error{0: badKey}
}

// A repair goes to the model the run asks now, whose price counts it.
func TestAModelRepairGoesToTheModelTheRunAsks(t *testing.T) {
	spec := echoSpec()
	h := newHarness(t, spec, typedThree(activities.ModelReply{}), echoTool)
	fellBack(h, spec)
	h.repairModel = repairsToThree
	h.repairUsage = activities.RepairReply{InputTokens: 40}
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, 1, h.requests[0].Fallback)
	require.Len(t, h.repairReqs, 1)
	require.Equal(t, 1, h.repairReqs[0].Fallback, "b, not the model that refused")
	require.InDelta(t, config.Amount(40*1000), res.Spend.Cost, 1e-15, "at b's price")
}
