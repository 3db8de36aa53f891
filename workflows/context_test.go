package workflows

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/model"
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
	require.Equal(t, []model.Compaction{{Tokens: 90_000, Budget: 89_292, ClearedBefore: 5}}, rec.Compactions)
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
	require.Equal(t, []model.Compaction{{Tokens: 95_000, Budget: 89_292}}, rec.Compactions)
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

// When the results are cleared already, the oldest turns are summarized:
// the model reads the task, the summary, then the steps kept whole.
func TestTurnsAreSummarizedWhenClearingIsNotEnough(t *testing.T) {
	replies := compactingReplies()
	over := replies[6]
	// Over: clear steps 1-4; over again: all but step 6's; over again:
	// summarize.
	replies = append(replies[:7:7], over, over, activities.ModelReply{Content: "done"})
	h := newHarness(t, contextSpec(), replies, echoTool)
	var asked []activities.SummaryRequest
	h.env.OnActivity(acts.Summarize, mock.Anything, mock.Anything).Return(
		func(_ context.Context, req activities.SummaryRequest) (*activities.SummaryReply, error) {
			asked = append(asked, req)
			return &activities.SummaryReply{Text: "looked up 0 to 3", Read: len(req.Messages)}, nil
		})
	_, err := h.run(AgentInput{Agent: "agent", Task: "count"})
	require.NoError(t, err)
	require.Len(t, asked, 1, "one summary for the request")
	require.Equal(t, 89_292/2, asked[0].Budget, "half the prompt: the summary request must fit where the prompt did not")
	var results []string
	for _, m := range asked[0].Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	require.Len(t, results, 4, "steps 1 to 4, before the two kept")
	require.Contains(t, results[0], `"i"`, "the summary reads the results themselves, not the cleared notes")

	tr := h.trace()
	sums := nodesByKind(tr, signals.KindSummary)
	require.Len(t, sums, 1)
	require.JSONEq(t, `"looked up 0 to 3"`, string(sums[0].Output))

	last := h.requests[len(h.requests)-1]
	require.Zero(t, last.Base)
	var roles []string
	for _, m := range last.Delta {
		roles = append(roles, m.Role)
	}
	require.Equal(t, []string{"system", "user", "user", "assistant", "tool", "assistant", "tool"}, roles,
		"the task, the summary, then steps 5 and 6")
	require.Contains(t, last.Delta[2].Content, "looked up 0 to 3")

	var rec replyRecord
	require.NoError(t, json.Unmarshal(nodesByKind(tr, signals.KindRequest)[6].Output, &rec))
	require.Len(t, rec.Compactions, 3)
	require.Equal(t, 5, rec.Compactions[0].ClearedBefore)
	require.Equal(t, 6, rec.Compactions[1].ClearedBefore, "the kept steps alone were over: only the last step's result stays")
	require.Equal(t, sums[0].ID, rec.Compactions[2].Summary)
}
