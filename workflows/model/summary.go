package model

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
)

// When clearing old results is not enough, the oldest turns themselves
// give way: the model summarizes the conversation before the last
// keep_last steps (an activity: its answer is recorded), the summary
// becomes a trace node (kind summary) and the conversation reads the task,
// the summary, then what followed it. Which turns, how they read and the
// summary's node are the run's (Run: OldestTurns, AddSummary); whether and
// within what it is asked is the call's.

// Turns are the oldest turns of the conversation, as a summary reads
// them.
type Turns struct {
	Messages []activities.Message
	// Last is the run's index of the last trace node they cover.
	Last int
}

// summarize makes the summary for request reqID (once per request) from
// at most budget tokens of the oldest turns (half the prompt: the
// summary's own request must fit where the prompt did not), and answers
// its node id, "" when there is nothing (more) to summarize or the model
// could not; overBudget when it was not asked for the run's budget (and
// may be once a person raised it).
func (c *Call) summarize(ctx workflow.Context, reqID string, budget int) (id string, overBudget bool) {
	if c.mem.summarized[reqID] {
		return "", false
	}
	turns, ok := c.run.OldestTurns()
	if !ok {
		return "", false
	}
	if c.mem.summarized == nil {
		c.mem.summarized = map[string]bool{}
	}
	// The summary is a model request like any other: asked only within
	// the budget, its transcript bounded by what the budget leaves. Over
	// it, no summary: the request itself takes the budget rung.
	allow, over := c.run.BesideBudget(ctx)
	if over != "" {
		if c.version(ctx, c.gates.SummaryAfterRaise, 1) < 1 {
			c.mem.summarized[reqID] = true // before: not asked again, even after a raise
			return "", false
		}
		return "", true
	}
	c.mem.summarized[reqID] = true
	if allow > 0 && allow < budget {
		budget = allow
	}
	// Of the model the run asks now, at whose price the run's spend counts it.
	req := activities.SummaryRequest{Agent: c.spec.Agent.Name, Messages: turns.Messages, Budget: budget, Fallback: c.s.ModelAt}
	reply, err := c.run.AskSummary(ctx, req)
	if err != nil {
		workflow.GetLogger(ctx).Warn("no summary: the request is sent as it is", "request", reqID, "error", c.errText(err))
		return "", false
	}
	return c.run.AddSummary(ctx, turns, reply), false
}
