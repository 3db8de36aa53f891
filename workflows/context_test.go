package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// contextSpec is echoSpec's agent on gpt-4o, compacting at 80% of the
// window and keeping the results of its last 2 steps.
func contextSpec() *config.Resolved {
	spec := echoSpec()
	spec.Model.Name = "gpt-4o"
	spec.Agent.Policies.Context = &config.ContextPolicy{CompactAt: 0.8, KeepLast: 2}
	return spec
}

// Six steps of one call each, then a request the model activity counts
// over the budget (unsent), then the answer.
func compactingReplies() []activities.ModelReply {
	var replies []activities.ModelReply
	for i := range 6 {
		replies = append(replies, activities.ModelReply{ToolCalls: []activities.ToolCall{call(fmt.Sprintf("k%d", i), "a", fmt.Sprintf(`{"i": %d}`, i))}})
	}
	return append(replies,
		activities.ModelReply{OverBudget: &activities.PromptCount{Tokens: 90_000, Budget: 89_292}},
		activities.ModelReply{Content: "done"})
}

func TestAPromptOverItsBudgetIsCompactedAndAskedAgain(t *testing.T) {
	h := newHarness(t, contextSpec(), compactingReplies(), echoTool)
	res, err := h.run(AgentInput{Agent: "agent", Task: "count"})
	require.NoError(t, err)
	require.Equal(t, "done", string(mustJSONString(res.Output)))
	require.Len(t, h.requests, 8)
	for _, req := range h.requests {
		require.Equal(t, 89_292, req.PromptBudget, "every request carries the budget")
	}
	again := h.requests[7]
	require.Zero(t, again.Base, "the compacted conversation is sent whole")
	var cleared, whole []string
	for _, m := range again.Delta {
		if m.Role != "tool" {
			continue
		}
		if strings.Contains(m.Content, "cleared: ask for it again if needed") {
			cleared = append(cleared, m.ToolCallID)
		} else {
			whole = append(whole, m.ToolCallID)
		}
	}
	require.Equal(t, []string{"k0", "k1", "k2", "k3"}, cleared, "the results of the steps before the last two")
	require.Equal(t, []string{"k4", "k5"}, whole)

	// The request node says what its conversation took; the trace keeps
	// every result.
	tr := h.trace()
	reqs := nodesByKind(tr, signals.KindRequest)
	var rec replyRecord
	require.NoError(t, json.Unmarshal(reqs[6].Output, &rec))
	require.Equal(t, []compaction{{Tokens: 90_000, Budget: 89_292, ClearedBefore: 5}}, rec.Compactions)
	for _, n := range nodesByKind(tr, signals.KindCall) {
		require.Contains(t, string(n.Output), `"i"`)
	}
}

// When nothing more can be cleared, the request is sent as it is: the
// run never loops on compaction.
func TestAPromptThatCannotBeCompactedIsSentAsItIs(t *testing.T) {
	over := activities.ModelReply{OverBudget: &activities.PromptCount{Tokens: 95_000, Budget: 89_292}}
	h := newHarness(t, contextSpec(), []activities.ModelReply{over, {Content: "done"}}, echoTool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Len(t, h.requests, 2)
	require.Zero(t, h.requests[1].PromptBudget, "asked again without a budget")
	var rec replyRecord
	require.NoError(t, json.Unmarshal(nodesByKind(h.trace(), signals.KindRequest)[0].Output, &rec))
	require.Equal(t, []compaction{{Tokens: 95_000, Budget: 89_292}}, rec.Compactions)
}

func TestRunsOfAnEarlierVersionSendNoBudget(t *testing.T) {
	h := newHarness(t, contextSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
	h.before(versionContextClear)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Zero(t, h.requests[0].PromptBudget)
}

func TestAgentsWithoutAContextPolicySendNoBudget(t *testing.T) {
	h := newHarness(t, echoSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Zero(t, h.requests[0].PromptBudget)
}

func mustJSONString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
