package workflows

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// summarizingReplies are compactingReplies over their budget until the
// oldest turns are summarized (clear, clear again, summarize), then done.
func summarizingReplies() []activities.ModelReply {
	replies := compactingReplies()
	over := replies[6]
	return append(replies[:7:7], over, over, activities.ModelReply{Content: "done"})
}

// summaries mocks the summary activity, answering usage, and answers the
// requests it was sent.
func (h *harness) summaries(usage activities.SummaryReply) *[]activities.SummaryRequest {
	var asked []activities.SummaryRequest
	h.env.OnActivity(acts.Summarize, mock.Anything, mock.Anything).Return(
		func(_ context.Context, req activities.SummaryRequest) (*activities.SummaryReply, error) {
			h.mu.Lock()
			asked = append(asked, req)
			h.mu.Unlock()
			reply := usage
			reply.Text, reply.Read = "the oldest turns", len(req.Messages)
			return &reply, nil
		})
	return &asked
}

// A summary goes to the model the run asks now, whose price counts it.
func TestASummaryGoesToTheModelTheRunAsks(t *testing.T) {
	spec := contextSpec()
	h := newHarness(t, spec, summarizingReplies(), echoTool)
	fellBack(h, spec)
	asked := h.summaries(activities.SummaryReply{InputTokens: 500})
	res, err := h.run(AgentInput{Agent: "agent", Task: "count"})
	require.NoError(t, err)
	require.Len(t, *asked, 1)
	require.Equal(t, 1, (*asked)[0].Fallback, "b, not the model that refused")
	require.Len(t, nodesByKind(h.trace(), signals.KindSummary), 1)
	require.InDelta(t, config.Amount(500*1000), res.Spend.Cost, 1e-15, "at b's price")
}

// summaryAtTheWallTime runs summarizingReplies, over their prompt budget
// once more, each request taking a minute: the wall time (8m30s) runs out
// while the third request over its prompt budget is out, at the summary.
// A person raises the budget by an hour at 15m.
func summaryAtTheWallTime(t *testing.T, before ...string) (*harness, *[]activities.SummaryRequest) {
	spec := contextSpec()
	spec.Agent.Policies.Budget = &config.Budget{WallTime: config.Duration(8*time.Minute + 30*time.Second)}
	spec.Agent.Policies.Escalation = []string{"human", "stop"}
	replies := summarizingReplies()
	over := replies[6]
	replies = append(replies[:9:9], over, activities.ModelReply{Content: "done"})
	h := newHarness(t, spec, replies, echoTool)
	if len(before) > 0 {
		h.before(before...)
	}
	h.modelTakes = time.Minute
	asked := h.summaries(activities.SummaryReply{})
	var raise updateResult
	h.budgetUpdate(15*time.Minute, signals.BudgetRequest{Raise: &signals.BudgetRaise{WallTime: "1h"}}, &raise)
	res, err := h.run(AgentInput{Agent: "agent", Task: "count"})
	require.NoError(t, err)
	require.NoError(t, raise.rejected)
	require.Equal(t, "done", mustJSONString(res.Output))
	require.Len(t, budgetNodes(h.trace()), 1, "the request took the rung")
	return h, asked
}

// A summary not asked for the budget is asked once a person raised it:
// the request keeps its prompt budget and takes the budget rung first.
func TestASummaryOverTheBudgetIsAskedAfterARaise(t *testing.T) {
	h, asked := summaryAtTheWallTime(t)
	require.Equal(t, 89_292, h.requests[9].PromptBudget, "asked again within its prompt budget")
	require.Len(t, *asked, 1, "summarized after the raise")
	var rec replyRecord
	require.NoError(t, json.Unmarshal(nodesByKind(h.trace(), signals.KindRequest)[6].Output, &rec))
	require.Len(t, rec.Compactions, 4)
	require.True(t, rec.Compactions[2].OverBudget)
	require.NotEmpty(t, rec.Compactions[3].Summary)
}

// Runs recorded before send the request whole, unsummarized.
func TestASummaryOverTheBudgetOfAnEarlierVersionIsNotAskedAgain(t *testing.T) {
	h, asked := summaryAtTheWallTime(t, versionSummaryAfterRaise)
	require.Zero(t, h.requests[9].PromptBudget)
	require.Empty(t, *asked)
}

// A summary is checked against the budget as the request it stands
// beside: when the budget bounds the request's reply below the model's
// (output_tokens left), the summary is still asked, not refused at the
// model's whole bound while the request keeps coming back over its
// prompt budget.
func TestASummaryFitsWhereItsRequestFits(t *testing.T) {
	spec := contextSpec()
	spec.Agent.Policies.Budget = &config.Budget{OutputTokens: ptr(10_000)} // under gpt-4o's 16,384
	spec.Agent.Policies.Escalation = []string{"human", "stop"}
	h := newHarness(t, spec, summarizingReplies(), echoTool)
	asked := h.summaries(activities.SummaryReply{})
	res, err := h.run(AgentInput{Agent: "agent", Task: "count"})
	require.NoError(t, err)
	require.Equal(t, "done", mustJSONString(res.Output))
	require.Len(t, *asked, 1, "the summary was asked")
	require.Empty(t, budgetNodes(h.trace()), "and no rung was needed")
	for _, req := range h.requests {
		require.LessOrEqual(t, req.MaxTokens, 10_000)
	}
}
