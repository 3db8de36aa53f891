package workflows

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
)

// Argument repair around the tool calls, with the tool and the repair
// model mocked (test doubles); the rules and the bounds are real.

func echoTool(req activities.ToolRequest) (json.RawMessage, error) { return req.Args, nil }

func repairNodes(tr signals.Trace) []signals.Node { return nodesByKind(tr, signals.KindRepair) }

func TestRulesRepairBeforeTheCallWithoutTheModel(t *testing.T) {
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k", "typed", `{"n": "3"}`)}},
		{Content: "ok"},
	}, echoTool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.JSONEq(t, `{"n":3}`, string(h.toolReqs[0].Args))
	require.Empty(t, h.repairReqs, "no model request for what a rule repairs")
	rn := repairNodes(h.trace())
	require.Len(t, rn, 1)
	require.Contains(t, string(rn[0].Output), `"strategy":"coerce_type"`)
	require.JSONEq(t, `{"n":"3"}`, string(rn[0].Args))
}

func TestJudgementGoesToOneFocusedModelRequest(t *testing.T) {
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k", "typed", `{"n": "three"}`)}},
		{Content: "ok"},
	}, echoTool)
	h.repairModel = func(req activities.RepairRequest) (json.RawMessage, error) {
		return json.RawMessage(`{"n": 3}`), nil
	}
	_, err := h.run(AgentInput{Agent: "agent", Task: "count to three"})
	require.NoError(t, err)
	require.Len(t, h.repairReqs, 1)
	require.Equal(t, "typed", h.repairReqs[0].Tool.Name)
	require.Equal(t, "count to three", h.repairReqs[0].Task)
	require.Contains(t, h.repairReqs[0].Error, "at /n")
	require.JSONEq(t, `{"n":3}`, string(h.toolReqs[0].Args))
	require.Len(t, h.requests, 2, "the repair is not a turn of the conversation")
}

func TestRejectedArgumentsAreRepairedAndReissuedWithANewKey(t *testing.T) {
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k", "typed", `{"n": 0}`)}},
		{Content: "ok"},
	}, func(req activities.ToolRequest) (json.RawMessage, error) {
		var a struct{ N int }
		_ = json.Unmarshal(req.Args, &a)
		if a.N < 1 {
			return nil, temporal.NewNonRetryableApplicationError("tool typed: HTTP 422: value for 'n' must be >= 1", "invalid_args", nil)
		}
		return req.Args, nil
	})
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Len(t, h.toolReqs, 2)
	require.JSONEq(t, `{"n":1}`, string(h.toolReqs[1].Args))
	require.NotEqual(t, h.toolReqs[0].CallID, h.toolReqs[1].CallID, "a re-issued call has its own idempotency key")
	require.Empty(t, h.repairReqs)
	call := nodeByTool(h.trace(), "typed")
	require.Equal(t, signals.StatusCompleted, call.Status)
	require.Contains(t, string(repairNodes(h.trace())[0].Output), `"strategy":"clamp"`)
}

func TestRepairIsBoundedThenTheModelHearsOfIt(t *testing.T) {
	spec := echoSpec()
	spec.Agent.Policies.Repair.MaxAttempts = 2
	h := newHarness(t, spec, []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k", "typed", `{"n": "three"}`)}},
		{Content: "gave up"},
	}, echoTool)
	h.repairModel = func(req activities.RepairRequest) (json.RawMessage, error) {
		return json.RawMessage(`{"n": "still three"}`), nil
	}
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Empty(t, h.toolReqs, "arguments that never validate never reach the tool")
	require.LessOrEqual(t, len(h.repairReqs), 2)
	require.LessOrEqual(t, len(repairNodes(h.trace())), 2)
	require.Contains(t, h.requests[1].Delta[0].Content, "do not match the tool's parameters schema")
}

func TestFatalErrorsAreNeverRepaired(t *testing.T) {
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k", "a", `{"x": 1}`)}},
		{Content: "ok"},
	}, func(req activities.ToolRequest) (json.RawMessage, error) {
		return nil, temporal.NewNonRetryableApplicationError("tool a: HTTP 401: no entry", "fatal", nil)
	})
	h.repairModel = func(activities.RepairRequest) (json.RawMessage, error) { return json.RawMessage(`{"x": 2}`), nil }
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Len(t, h.toolReqs, 1)
	require.Empty(t, h.repairReqs)
	require.Empty(t, repairNodes(h.trace()))
}

func TestAModelRepairDoesNotHoldUpTheOtherCalls(t *testing.T) {
	// Real time is what shows it: the mocked activities run in goroutines,
	// and the repair model takes half a second. The other call must reach
	// its tool before the repair is done, not after.
	var mu sync.Mutex
	var aRanAt, repairDoneAt time.Time
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "typed", `{"n": "three"}`), call("k2", "a", `{"v": 1}`)}},
		{Content: "ok"},
	}, func(req activities.ToolRequest) (json.RawMessage, error) {
		if req.Tool.Name == "a" {
			mu.Lock()
			aRanAt = time.Now()
			mu.Unlock()
		}
		return req.Args, nil
	})
	h.repairModel = func(activities.RepairRequest) (json.RawMessage, error) {
		time.Sleep(500 * time.Millisecond)
		mu.Lock()
		repairDoneAt = time.Now()
		mu.Unlock()
		return json.RawMessage(`{"n": 3}`), nil
	}
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Len(t, h.toolReqs, 2)
	require.False(t, aRanAt.IsZero() || repairDoneAt.IsZero())
	require.True(t, aRanAt.Before(repairDoneAt), "a ran while typed's arguments were being repaired")
}
