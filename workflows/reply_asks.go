package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// replyAsk is the approval block of a wait for a reply (a graph's human
// node's, the ladder's human rung's) in the run that waits.
type replyAsk struct {
	r *runner
	a config.Approval
}

// decide says whether the wait asks a person now (policies.ApprovalAsks):
// a wait carried from the generation before does, as do one with no
// condition and a run recorded before the block existed; one whose
// condition is false does not. The note says how the condition came out.
func (q replyAsk) decide(ctx workflow.Context) policies.ApprovalDecision {
	if !q.a.Conditional() || q.r.person().ReplyNode() != "" || versionOf(ctx, versionHumanPeople, 1) < 1 {
		return policies.ApprovalDecision{Ask: true}
	}
	r := q.r
	return r.exprs.asks(q.a, config.ApprovalEnv{Args: map[string]any{}, State: r.run.State, Input: r.inputMap()})
}

// why is what the human node says it waits for, with the note.
func withNote(why, note string) string {
	if note == "" {
		return why
	}
	return why + " (" + note + ")"
}
