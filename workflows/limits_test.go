package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
)

// Calls of one reply past calls_per_reply are answered with an error and
// never run; the model reads an answer to every call.
func TestCallsPastTheReplyLimitAreAnsweredNotRun(t *testing.T) {
	spec := echoSpec()
	spec.Agent.Policies.Limits = config.Limits{CallsPerReply: 3, CallsInFlight: 16}
	var calls []activities.ToolCall
	for i := range 5 {
		calls = append(calls, call(fmt.Sprintf("k%d", i), "a", fmt.Sprintf(`{"i": %d}`, i)))
	}
	cc := &concurrency{}
	h := newHarness(t, spec, []activities.ModelReply{{ToolCalls: calls}, {Content: "ok"}}, cc.tool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Len(t, cc.started, 3)
	delta := h.requests[1].Delta
	require.Len(t, delta, 5, "one answer per call")
	for _, m := range delta[3:] {
		require.Contains(t, m.Content, "over the limit of 3 calls per reply")
	}
}

// Past calls_in_flight, tool activities wait in line; all of them run.
func TestToolCallsPastTheInFlightLimitWaitInLine(t *testing.T) {
	spec := echoSpec()
	spec.Agent.Policies.Limits = config.Limits{CallsPerReply: 64, CallsInFlight: 2}
	var calls []activities.ToolCall
	for i := range 6 {
		calls = append(calls, call(fmt.Sprintf("k%d", i), "a", fmt.Sprintf(`{"i": %d}`, i)))
	}
	cc := &concurrency{delay: map[string]time.Duration{"a": 50 * time.Millisecond}}
	h := newHarness(t, spec, []activities.ModelReply{{ToolCalls: calls}, {Content: "ok"}}, cc.tool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Len(t, cc.finished, 6, "every call ran")
	require.LessOrEqual(t, cc.max, 2, "never more than 2 at once")
	for _, m := range h.requests[1].Delta {
		require.NotContains(t, m.Content, `"error"`)
	}
}

// References that copy two large values into one call make arguments over
// the payload limit: the call fails with the reason, the run goes on.
func TestOversizedResolvedArgumentsFailTheCall(t *testing.T) {
	big := strings.Repeat("x", 900<<10)
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "a", `{"v": "`+big+`", "_outputPath": "†state.big"}`)}},
		{ToolCalls: []activities.ToolCall{call("k2", "b", `{"one": "†state.big", "two": "†state.big"}`)}},
		{Content: "ok"},
	}, okEcho)
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.JSONEq(t, `"ok"`, string(res.Output))
	require.Len(t, h.toolReqs, 1, "the oversized call never reaches its tool")
	require.Contains(t, h.requests[2].Delta[0].Content, "the resolved arguments are 1800 KiB, over the 1536 KiB")
}

// An output over the payload limit is refused (Temporal would refuse the
// result); the model is told and gives a smaller one.
func TestOversizedOutputIsRefused(t *testing.T) {
	huge := strings.Repeat("y", 1600<<10)
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", FinalOutputTool, `{"report": "`+huge+`"}`)}},
		{ToolCalls: []activities.ToolCall{call("k2", FinalOutputTool, `{"report": "short"}`)}},
	}, okEcho)
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.JSONEq(t, `{"report": "short"}`, string(res.Output))
	last := h.requests[len(h.requests)-1].Delta
	require.Contains(t, last[len(last)-1].Content, "the output is 1600 KiB, over the 1536 KiB")
}

// A conversation that outgrows the payload limit is fitted to it: the
// oldest results are cut with a marker, every request stays under the
// limit, and the run goes on instead of stopping.
func TestAConversationOverThePayloadLimitIsFitted(t *testing.T) {
	result := json.RawMessage(`"` + strings.Repeat("r", 120<<10) + `"`)
	var replies []activities.ModelReply
	for i := range 16 {
		replies = append(replies, activities.ModelReply{ToolCalls: []activities.ToolCall{call(fmt.Sprintf("k%d", i), "a", fmt.Sprintf(`{"i": %d}`, i))}})
	}
	replies = append(replies, activities.ModelReply{Content: "done"})
	h := newHarness(t, echoSpec(), replies, func(activities.ToolRequest) (json.RawMessage, error) { return result, nil })
	res, err := h.run(AgentInput{Agent: "agent", Task: "keep going"})
	require.NoError(t, err)
	require.JSONEq(t, `"done"`, string(res.Output))
	fitted := false
	for _, req := range h.requests {
		require.Less(t, len(mustJSON(req)), config.MaxPayloadBytes)
		for _, m := range req.Delta {
			if strings.Contains(m.Content, "were cut to keep the request under Temporal's payload limit") {
				fitted = true
			}
		}
	}
	require.True(t, fitted, "some request carried a cut result")
	var whole *activities.ModelRequest
	for i := 1; i < len(h.requests); i++ {
		if h.requests[i].Base == 0 {
			whole = &h.requests[i]
		}
	}
	require.NotNil(t, whole, "the fitted conversation was sent whole once")
	require.Contains(t, whole.Delta[1].Content, "keep going", "the task is never cut")
}

// The cheap bound never says "fits" for a conversation whose JSON does not.
func TestOverBudgetAgreesWithTheEncodedSize(t *testing.T) {
	for _, content := range []string{strings.Repeat("a", 1000), strings.Repeat("<>&\"\n", 200), strings.Repeat("é", 500)} {
		msgs := []activities.Message{{Role: "user", Content: content}, {Role: "assistant", ToolCalls: []activities.ToolCall{call("k1", "a", `{"x": "`+content+`"}`)}}}
		size := len(mustJSON(msgs))
		require.True(t, overBudget(msgs, size-1), "content %.10q", content)
		require.False(t, overBudget(msgs, size), "content %.10q", content)
	}
}
