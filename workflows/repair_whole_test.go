package workflows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// Whole-argument repairs: arguments that are not a JSON object as sent
// are read as one by rules, before the call, without the model.
func TestWholeArgumentsRepairedWithoutTheModel(t *testing.T) {
	cases := []struct{ name, args, strategy string }{
		{"double-encoded", `"{\"n\": 3}"`, `"strategy":"decode_json_string"`},
		{"lenient JSON", `{'n': 3, /* three */}`, `"strategy":"lenient_json"`},
		{"wrapped", `{"arguments": {"n": 3}}`, `"strategy":"unwrap_arguments"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, echoSpec(), []activities.ModelReply{
				{ToolCalls: []activities.ToolCall{call("k", "typed", c.args)}},
				{Content: "ok"},
			}, echoTool)
			_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
			require.NoError(t, err)
			require.Len(t, h.toolReqs, 1)
			require.JSONEq(t, `{"n":3}`, string(h.toolReqs[0].Args))
			require.Empty(t, h.repairReqs)
			rn := repairNodes(h.trace())
			require.Len(t, rn, 1)
			require.Contains(t, string(rn[0].Output), c.strategy)
		})
	}
}

// A run recorded before the rules existed (no whole-arguments marker)
// does what it did: the call fails, or the model is asked.
func TestWholeArgumentsOffForOlderRuns(t *testing.T) {
	t.Run("double-encoded fails", func(t *testing.T) {
		h := newHarness(t, echoSpec(), []activities.ModelReply{
			{ToolCalls: []activities.ToolCall{call("k", "typed", `"{\"n\": 3}"`)}},
			{Content: "ok"},
		}, echoTool)
		h.before(versionWholeArguments)
		_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
		require.NoError(t, err)
		require.Empty(t, h.toolReqs)
		require.Empty(t, repairNodes(h.trace()))
		calls := nodesByKind(h.trace(), signals.KindCall)
		require.Len(t, calls, 1)
		require.Equal(t, "arguments must be a JSON object", calls[0].Error)
	})
	t.Run("wrapped goes to the model", func(t *testing.T) {
		h := newHarness(t, echoSpec(), []activities.ModelReply{
			{ToolCalls: []activities.ToolCall{call("k", "typed", `{"arguments": {"n": 3}}`)}},
			{Content: "ok"},
		}, echoTool)
		h.before(versionWholeArguments)
		h.repairModel = func(activities.RepairRequest) (json.RawMessage, error) { return json.RawMessage(`{"n": 3}`), nil }
		_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
		require.NoError(t, err)
		require.Len(t, h.repairReqs, 1)
		require.JSONEq(t, `{"n":3}`, string(h.toolReqs[0].Args))
	})
}

// An unknown tool fails as such: its arguments are not repaired first.
func TestWholeArgumentsNotRepairedForAnUnknownTool(t *testing.T) {
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k", "nope", `{'n': 3}`)}},
		{Content: "ok"},
	}, echoTool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Empty(t, repairNodes(h.trace()))
	require.Empty(t, h.toolReqs)
}

func datedSpec() *config.Resolved {
	f := &config.File{
		Model: config.Model{BaseURL: "http://127.0.0.1:1/v1", Name: "scripted:test"},
		Tools: []config.Tool{{Name: "dated", Builtin: "echo", Parameters: map[string]any{
			"type": "object", "required": []any{"on"},
			"properties": map[string]any{"on": map[string]any{"type": "string", "format": "date"}},
		}}},
		Agents: []config.Agent{{Name: "agent", Instructions: "x", Tools: []string{"dated"}}},
	}
	return mustResolve(f, "agent")
}

// "tomorrow" is the day after the run's day (workflow.Now, in UTC); a
// run recorded before the rule asks the model.
func TestRelativeDateResolvedAgainstTheRunsDay(t *testing.T) {
	for _, old := range []bool{false, true} {
		h := newHarness(t, datedSpec(), []activities.ModelReply{
			{ToolCalls: []activities.ToolCall{call("k", "dated", `{"on": "tomorrow"}`)}},
			{Content: "ok"},
		}, echoTool)
		h.env.SetStartTime(time.Date(2024, 12, 31, 22, 0, 0, 0, time.UTC))
		if old {
			h.before(versionRelativeDates)
		}
		h.repairModel = func(activities.RepairRequest) (json.RawMessage, error) {
			return json.RawMessage(`{"on": "2025-01-01"}`), nil
		}
		_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
		require.NoError(t, err)
		require.JSONEq(t, `{"on":"2025-01-01"}`, string(h.toolReqs[0].Args))
		if old {
			require.Len(t, h.repairReqs, 1)
			continue
		}
		require.Empty(t, h.repairReqs)
		require.Contains(t, string(repairNodes(h.trace())[0].Output), `"strategy":"relative_date"`)
	}
}
