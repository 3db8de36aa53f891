package workflows

import (
	"fmt"

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

// compaction is one compaction of a request's conversation.
type compaction struct {
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

// promptBudget is the token budget of the run's model requests (0: none).
// The version is asked once per run, and only for agents with
// policies.context.
func (r *runner) promptBudget(ctx workflow.Context) int {
	budget := r.run.Spec.PromptBudget()
	if budget == 0 {
		return 0
	}
	if r.contextVersion == nil {
		v := versionOf(ctx, versionContextClear, 1)
		r.contextVersion = &v
	}
	if *r.contextVersion < 1 {
		return 0
	}
	return budget
}

// compact clears the results of the steps before the last keep_last (all
// but the last step's when those alone are over: policies.ClearBefore)
// from the conversation of request reqID, counted over its budget, or when
// none are left to clear has the model summarize the turns before them
// (once per request), and answers the budget to ask again with: the same,
// or 0 when nothing more can be done (the request is then sent as it is,
// and the provider decides).
func (r *runner) compact(ctx workflow.Context, reqID string, count activities.PromptCount) int {
	run := r.run
	c := compaction{Tokens: count.Tokens, Budget: count.Budget, Refused: count.Refused}
	budget := 0
	if before, ok := policies.ClearBefore(run.Step, run.Spec.Agent.Policies.Context.KeepLast, run.ClearedBefore); ok {
		run.ClearedBefore, c.ClearedBefore = before, before
		// The conversation changed: the activity is sent it whole.
		run.sendWhole()
		budget = count.Budget
	} else if id, overBudget := r.summarize(ctx, reqID, min(count.Budget, count.Tokens)/2); id != "" {
		c.Summary, budget = id, count.Budget
	} else if overBudget {
		// Asked again within its prompt budget: the request takes the
		// budget rung first, and after a raise is summarized.
		c.OverBudget, budget = true, count.Budget
	}
	kind := "none"
	switch {
	case c.Summary != "":
		kind = "summary"
	case c.ClearedBefore > 0:
		kind = "clear"
	}
	r.count(ctx, MetricCompactions, 1, "kind", kind)
	if r.compactions == nil {
		r.compactions = map[string][]compaction{}
	}
	r.compactions[reqID] = append(r.compactions[reqID], c)
	workflow.GetLogger(ctx).Info("conversation over the prompt budget", "request", reqID, "tokens", count.Tokens, "budget", count.Budget, "cleared_before_step", c.ClearedBefore)
	return budget
}

// clearedResult stands in the conversation for a cleared result.
func clearedResult(nodeID string) string {
	return fmt.Sprintf("[result of %s cleared: ask for it again if needed]", nodeID)
}

// replyView is what a request node shows of the reply, with the
// compactions its conversation took.
func (r *runner) replyView(reqID string, reply activities.ModelReply) replyRecord {
	rec := replyView(reply)
	rec.Compactions = r.compactions[reqID]
	rec.LongerReply = r.longerReplies[reqID]
	delete(r.compactions, reqID)
	delete(r.longerReplies, reqID)
	return rec
}
