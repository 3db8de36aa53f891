package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/model"
)

// When clearing old results is not enough, package model has the
// model summarize the oldest turns (model/summary.go); this file is what
// the run gives it (model.Run): the turns, how they read, the summary's
// activity and its trace node (kind summary). The conversation then reads
// the task, the summary, then what followed it. An edit of a node before
// the summary invalidates it (every node after an edited one is), and the
// conversation reads the turns whole again.

// OldestTurns are the turns a new summary covers, read as the model
// reads them: a summary before them, then each node, a call's result
// whole, cleared or not.
func (m modelRun) OldestTurns() (model.Turns, bool) {
	run := m.r.run
	start, end := summarizable(run)
	if end < start {
		return model.Turns{}, false
	}
	var msgs []activities.Message
	if s := run.lastSummary(0); s >= 0 {
		msgs = append(msgs, summaryMessage(run, &run.Nodes[s]))
	}
	for i := start; i <= end; i++ {
		n := &run.Nodes[i]
		if n.Kind == signals.KindCall && (n.Status == signals.StatusCompleted || n.Status == signals.StatusFailed) && !n.Superseded {
			msgs = append(msgs, callMessage(n)) // the result itself, cleared or not
		} else if msg, ok := nodeMessage(run, n); ok {
			msgs = append(msgs, msg)
		}
	}
	return model.Turns{Messages: msgs, Last: end}, true
}

func (m modelRun) BesideBudget(ctx workflow.Context) (int, string) { return m.r.budget().Beside(ctx) }

func (m modelRun) AskSummary(ctx workflow.Context, req activities.SummaryRequest) (activities.SummaryReply, error) {
	opts := withSummary(modelOptions(m.r.run.Spec.Model), "summarize the oldest turns")
	var reply activities.SummaryReply
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), acts.Summarize, req).Get(ctx, &reply)
	return reply, err
}

func (m modelRun) AddSummary(ctx workflow.Context, turns model.Turns, reply activities.SummaryReply) string {
	run := m.r.run
	through := run.Nodes[turns.Last].ID
	node := m.r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindSummary, Status: signals.StatusCompleted, Parents: []string{through},
		Args:   mustJSON(map[string]any{"through": through, "messages": reply.Read, "left_out": reply.Dropped}),
		Output: mustJSON(reply.Text),
	}, Step: run.Step})
	m.r.budget().SpendTokens(ctx, node.ID, reply.InputTokens, reply.OutputTokens, reply.Estimated)
	// The conversation changed: the activity is sent it whole.
	run.sendWhole()
	return node.ID
}

// summarizable is the part of the trace a new summary covers: from where
// the conversation reads nodes now to the last node before the steps
// policies.context keeps whole (end < start: nothing).
func summarizable(run *Run) (start, end int) {
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
