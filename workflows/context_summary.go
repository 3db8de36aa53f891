package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
)

// When clearing old results is not enough, the oldest turns themselves
// give way: the model summarizes the conversation before the last
// keep_last steps (an activity: its answer is recorded), the summary
// becomes a trace node (kind summary) and the conversation reads the task,
// the summary, then what followed it. An edit of a node before the
// summary invalidates it (every node after an edited one is), and the
// conversation reads the turns whole again.

// summarize makes the summary for request reqID (once per request) from
// at most budget tokens of the oldest turns (half the prompt: the
// summary's own request must fit where the prompt did not), and answers
// its node id, "" when there is nothing (more) to summarize or the model
// could not; overBudget when it was not asked for the run's budget (and
// may be once a person raised it).
func (r *runner) summarize(ctx workflow.Context, reqID string, budget int) (id string, overBudget bool) {
	run := r.run
	if r.summarized[reqID] {
		return "", false
	}
	start, end := r.summarizable()
	if end < start {
		return "", false
	}
	var msgs []activities.Message
	if s := run.lastSummary(0); s >= 0 {
		msgs = append(msgs, summaryMessage(run, &run.Nodes[s]))
	}
	for i := start; i <= end; i++ {
		n := &run.Nodes[i]
		if n.Kind == signals.KindCall && (n.Status == signals.StatusCompleted || n.Status == signals.StatusFailed) && !n.Superseded {
			msgs = append(msgs, callMessage(n)) // the result itself, cleared or not
		} else if m, ok := nodeMessage(run, n); ok {
			msgs = append(msgs, m)
		}
	}
	if r.summarized == nil {
		r.summarized = map[string]bool{}
	}
	// The summary is a model request like any other: asked only within
	// the budget, its transcript bounded by what the budget leaves. Over
	// it, no summary: the request itself takes the budget rung.
	allow, over := r.budget().Beside(ctx)
	if over != "" {
		if versionOf(ctx, versionSummaryAfterRaise, 1) < 1 {
			r.summarized[reqID] = true // before: not asked again, even after a raise
			return "", false
		}
		return "", true
	}
	r.summarized[reqID] = true
	if allow > 0 && allow < budget {
		budget = allow
	}
	opts := withSummary(modelOptions(run.Spec.Model), "summarize the oldest turns")
	var reply activities.SummaryReply
	// Of the model the run asks now, at whose price the budget counts it (SpendTokens).
	req := activities.SummaryRequest{Agent: run.Spec.Agent.Name, Messages: msgs, Budget: budget, Fallback: run.ModelAt}
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), acts.Summarize, req).Get(ctx, &reply); err != nil {
		workflow.GetLogger(ctx).Warn("no summary: the request is sent as it is", "request", reqID, "error", errorText(err))
		return "", false
	}
	through := run.Nodes[end].ID
	node := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindSummary, Status: signals.StatusCompleted, Parents: []string{through},
		Args:   mustJSON(map[string]any{"through": through, "messages": reply.Read, "left_out": reply.Dropped}),
		Output: mustJSON(reply.Text),
	}, Step: run.Step})
	r.budget().SpendTokens(ctx, node.ID, reply.InputTokens, reply.OutputTokens, reply.Estimated)
	// The conversation changed: the activity is sent it whole.
	run.sendWhole()
	return node.ID, false
}

// summarizable is the part of the trace a new summary covers: from where
// the conversation reads nodes now to the last node before the steps
// policies.context keeps whole (end < start: nothing).
func (r *runner) summarizable() (start, end int) {
	run := r.run
	keepFrom := run.Step - run.Spec.Agent.Policies.Context.KeepLast
	start = run.conversationStart()
	end = start - 1
	for i := start; i < len(run.Nodes); i++ {
		n := &run.Nodes[i]
		if n.Kind == signals.KindRequest && n.Step >= keepFrom {
			break
		}
		if n.Kind != signals.KindSummary {
			end = i
		}
	}
	return start, end
}

// conversationStart is the index of the first node the conversation
// reads as a message: after the last handoff and the last summary.
func (run *Run) conversationStart() int {
	from := 0
	if h := run.lastHandoff(); h >= 0 {
		from = h + 1
	}
	if s := run.lastSummary(from); s >= 0 {
		from = max(from, run.firstAfter(summaryThrough(&run.Nodes[s])))
	}
	return from
}

// lastSummary is the index of the last valid summary at or after from,
// -1 when none.
func (run *Run) lastSummary(from int) int {
	for i := len(run.Nodes) - 1; i >= from; i-- {
		if n := &run.Nodes[i]; n.Kind == signals.KindSummary && n.Status == signals.StatusCompleted {
			return i
		}
	}
	return -1
}

// summaryThrough is the last node a summary covers.
func summaryThrough(n *Node) string {
	if len(n.Parents) > 0 {
		return n.Parents[0]
	}
	return ""
}

// summaryMessage is what the model reads of a summary.
func summaryMessage(run *Run, n *Node) activities.Message {
	var text string
	run.readRecorded(n, "the recorded summary", n.Output, &text)
	return userMessage("[unstuck] The oldest turns of this conversation were summarized to stay inside the model's context window (the trace keeps them whole):\n\n" + text)
}
