package workflows

import (
	"context"
	"testing"

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
