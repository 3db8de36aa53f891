package workflows

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies/repair"
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

// Arguments of a cut-off reply that the repair pipeline's rules read
// whole (here lenient JSON: single quotes) are repaired and run, not
// asked again; arguments no rule can read still are.
func TestCutOffArgumentsTheRulesReadAreRepairedNotAskedAgain(t *testing.T) {
	cutOff := activities.ModelReply{FinishReason: "length", ToolCalls: []activities.ToolCall{call("k1", "typed", `{'n': 3}`)}}
	for _, before := range []bool{false, true} {
		spec := echoSpec()
		spec.Model.Name = "gpt-4o"
		replies := []activities.ModelReply{cutOff, {Content: "done"}}
		if before {
			replies = []activities.ModelReply{cutOff, {ToolCalls: []activities.ToolCall{call("k1", "typed", `{"n": 4}`)}}, {Content: "done"}}
		}
		h := newHarness(t, spec, replies, echoTool)
		if before {
			h.before(versionCutOffRepair)
		}
		_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
		require.NoError(t, err)
		require.Len(t, h.toolReqs, 1)
		if before {
			require.Equal(t, 16_384, h.requests[1].MaxTokens, "before cut-off-repair: asked again")
			require.JSONEq(t, `{"n": 4}`, string(h.toolReqs[0].Args))
			continue
		}
		require.Zero(t, h.requests[1].MaxTokens, "not asked again")
		require.JSONEq(t, `{"n": 3}`, string(h.toolReqs[0].Args), "the cut-off arguments, read by rule")
		require.NotEmpty(t, nodesByKind(h.trace(), signals.KindRepair))
	}
	// A string cut in the middle is no rule's to finish.
	require.Nil(t, repair.RepairText(`{"n": 3, "note": "a long th`).JSON)
}

// Empty replies past the output's repair attempts (3) do not stop the
// run as failed outputs: each is a failure the loop detector counts, so
// three in a row are a loop and the ladder's first rung (a wait) answers
// it; the model answers after it.
func TestEmptyRepliesClimbTheLadderNotTheOutputsRepairs(t *testing.T) {
	spec := echoSpec()
	spec.Agent.Policies.Escalation = []string{"retry", "stop"}
	empty := activities.ModelReply{FinishReason: "stop"}
	h := newHarness(t, spec, []activities.ModelReply{empty, empty, empty, empty, {Content: "done"}}, echoTool)
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, "done", mustJSONString(res.Output))
	require.Equal(t, []string{"retry"}, actions(res.Escalations))
	require.Contains(t, res.Escalations[0].Why, "loop")
	outputs := nodesByKind(h.trace(), signals.KindOutput)
	require.Len(t, outputs, 5)
	for _, o := range outputs[:4] {
		require.Equal(t, signals.StatusFailed, o.Status)
		require.Contains(t, o.Error, "the reply was empty")
	}
}

// A model that keeps refusing is told what it said, then, at the loop,
// the ladder's last rung stops the run with a report naming the loop.
func TestRefusalsAreToldThenStoppedByTheLadder(t *testing.T) {
	spec := echoSpec()
	spec.Agent.Policies.Escalation = []string{"stop"}
	no := activities.ModelReply{Refusal: "I can't help with that.", FinishReason: "stop"}
	h := newHarness(t, spec, []activities.ModelReply{no, no, no, {Content: "never asked"}}, echoTool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	rep := stopReport(t, err)
	require.Equal(t, []string{"stop"}, actions(rep.Escalations))
	require.Contains(t, rep.LastError, "the reply was a refusal")
	require.Contains(t, rep.Escalations[0].Why, "no_progress loop")
	require.Len(t, h.requests, 3, "stopped at the loop, not asked a fourth time")
	told := h.requests[1].Delta[len(h.requests[1].Delta)-1].Content
	require.Contains(t, told, `the reply was a refusal (\"I can't help with that.\")`)
	outputs := nodesByKind(h.trace(), signals.KindOutput)
	require.Equal(t, `"I can't help with that."`, string(outputs[0].Output))
}
