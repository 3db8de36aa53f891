package model

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies"
)

// An agent with policies.context keeps its conversation inside the
// model's token window. The model activity counts each prompt with the
// model's tokenizer before sending it; one over the budget (compact_at of
// what the window leaves for the prompt) comes back unsent, with its count
// (activities.PromptCount). The workflow then decides, from that recorded
// count, what to clear: the results of the tool calls before the last
// keep_last steps give way to a note, and the request is asked again.
// The trace keeps every result whole; the request node's output lists the
// compactions it took.

// Compaction is one compaction of a request's conversation.
type Compaction struct {
	Tokens int `json:"tokens"`
	Budget int `json:"budget"`
	// ClearedBefore: the results of steps before it are cleared (0:
	// nothing more could be cleared, and the request was sent as it was).
	ClearedBefore int `json:"cleared_before"`
	// Refused: the provider refused the prompt as over the model's window
	// (context_length_exceeded), though counted under the budget.
	Refused bool `json:"refused,omitempty"`
	// Summary: nothing more could be cleared, so the oldest turns were
	// summarized into this node.
	Summary string `json:"summary,omitempty"`
	// OverBudget: the summary was not asked, for the run's budget.
	OverBudget bool `json:"over_budget,omitempty"`
}

// PromptBudget is the token budget of the run's model requests (0: none).
// The version is asked once per generation, and only for agents with
// policies.context.
func (c *Call) PromptBudget(ctx workflow.Context) int {
	budget := c.spec.PromptBudget()
	if budget == 0 {
		return 0
	}
	if c.mem.contextVersion == nil {
		v := c.version(ctx, c.gates.ContextClear, 1)
		c.mem.contextVersion = &v
	}
	if *c.mem.contextVersion < 1 {
		return 0
	}
	return budget
}

// Compact clears the results of the steps before the last keep_last (all
// but the last step's when those alone are over: policies.ClearBefore)
// from the conversation of request reqID, counted over its budget, or when
// none are left to clear has the model summarize the turns before them
// (once per request), and answers the budget to ask again with: the same,
// or 0 when nothing more can be done (the request is then sent as it is,
// and the provider decides).
func (c *Call) Compact(ctx workflow.Context, reqID string, count activities.PromptCount) int {
	cp := Compaction{Tokens: count.Tokens, Budget: count.Budget, Refused: count.Refused}
	budget := 0
	if before, ok := policies.ClearBefore(c.step, c.spec.Agent.Policies.Context.KeepLast, *c.cleared); ok {
		*c.cleared, cp.ClearedBefore = before, before
		// The conversation changed: the activity is sent it whole.
		c.run.SendWhole()
		budget = count.Budget
	} else if id, overBudget := c.summarize(ctx, reqID, min(count.Budget, count.Tokens)/2); id != "" {
		cp.Summary, budget = id, count.Budget
	} else if overBudget {
		// Asked again within its prompt budget: the request takes the
		// budget rung first, and after a raise is summarized.
		cp.OverBudget, budget = true, count.Budget
	}
	kind := "none"
	switch {
	case cp.Summary != "":
		kind = "summary"
	case cp.ClearedBefore > 0:
		kind = "clear"
	}
	c.run.Count(ctx, c.metrics.Compactions, 1, "kind", kind)
	if c.mem.compactions == nil {
		c.mem.compactions = map[string][]Compaction{}
	}
	c.mem.compactions[reqID] = append(c.mem.compactions[reqID], cp)
	workflow.GetLogger(ctx).Info("conversation over the prompt budget", "request", reqID, "tokens", count.Tokens, "budget", count.Budget, "cleared_before_step", cp.ClearedBefore)
	return budget
}

// Shown is what request reqID's node shows of its call once answered:
// the compactions its conversation took, and the max_tokens it was asked
// again with for a longer reply (0: none). The request is forgotten.
func (c *Call) Shown(reqID string) (compactions []Compaction, longerReply int) {
	compactions, longerReply = c.mem.compactions[reqID], c.mem.longer[reqID]
	delete(c.mem.compactions, reqID)
	delete(c.mem.longer, reqID)
	return compactions, longerReply
}
