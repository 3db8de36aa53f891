package workflows

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
)

// An empty reply (cut off or filtered) is no answer: the model is told,
// and asked again.
func TestAnEmptyReplyIsAnsweredAndAskedAgain(t *testing.T) {
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{FinishReason: "content_filter"},
		{Content: "done"},
	}, echoTool)
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, "done", mustJSONString(res.Output))
	require.Len(t, h.requests, 2)
	told := h.requests[1].Delta[len(h.requests[1].Delta)-1]
	require.Equal(t, "user", told.Role)
	require.Contains(t, told.Content, `the reply was empty (finish_reason \"content_filter\")`)
	outputs := nodesByKind(h.trace(), signals.KindOutput)
	require.Equal(t, signals.StatusFailed, outputs[0].Status)
}

// A reply cut off (finish_reason "length") in the middle of a call's
// arguments: the call never runs with the broken arguments; the model is
// told what was wrong and asked again.
func TestACallCutOffByTheReplysLengthIsNotRun(t *testing.T) {
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{FinishReason: "length", ToolCalls: []activities.ToolCall{call("k1", "typed", `{"n": 3, "note": "a long th`)}},
		{ToolCalls: []activities.ToolCall{call("k2", "typed", `{"n": 3}`)}},
		{Content: "done"},
	}, echoTool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Len(t, h.toolReqs, 1, "only the whole call ran")
	require.JSONEq(t, `{"n": 3}`, string(h.toolReqs[0].Args))
	var told string
	for _, m := range h.requests[1].Delta {
		if m.Role == "tool" && m.ToolCallID == "k1" {
			told = m.Content
		}
	}
	require.NotEmpty(t, told, "the cut-off call is answered")
	require.True(t, strings.Contains(told, `"error"`), "with an error: %s", told)
}

// With a model whose reply bound is known, a reply cut off in a call's
// arguments is asked again once, with room for the whole call, under
// the same request node; the cut-off call is never seen.
func TestACutOffReplyIsAskedAgainWithRoom(t *testing.T) {
	spec := echoSpec()
	spec.Model.Name = "gpt-4o"
	h := newHarness(t, spec, []activities.ModelReply{
		{FinishReason: "length", ToolCalls: []activities.ToolCall{call("k1", "typed", `{"n": 3, "note": "a long th`)}},
		{ToolCalls: []activities.ToolCall{call("k1", "typed", `{"n": 3, "note": "a long thought"}`)}},
		{Content: "done"},
	}, echoTool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Len(t, h.requests, 3)
	require.Zero(t, h.requests[0].MaxTokens)
	require.Equal(t, 16_384, h.requests[1].MaxTokens, "gpt-4o's max_output_tokens")
	require.Zero(t, h.requests[2].MaxTokens, "the next request is asked as usual")
	require.Len(t, h.toolReqs, 1)
	require.JSONEq(t, `{"n": 3, "note": "a long thought"}`, string(h.toolReqs[0].Args))
	tr := h.trace()
	reqs := nodesByKind(tr, signals.KindRequest)
	require.Len(t, reqs, 2, "asked again under the same node")
	var rec replyRecord
	require.NoError(t, json.Unmarshal(reqs[0].Output, &rec))
	require.Equal(t, 16_384, rec.LongerReply)
	require.Len(t, nodesByKind(tr, signals.KindCall), 1)
}

func TestACutOffReplyOfAnEarlierVersionGoesToThePipeline(t *testing.T) {
	spec := echoSpec()
	spec.Model.Name = "gpt-4o"
	h := newHarness(t, spec, []activities.ModelReply{
		{FinishReason: "length", ToolCalls: []activities.ToolCall{call("k1", "typed", `{"n": 3, "note": "a long th`)}},
		{Content: "done"},
	}, echoTool)
	h.before(versionLongerReply)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Zero(t, h.requests[1].MaxTokens)
	require.Empty(t, h.toolReqs)
}
