package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies"
)

// A free-form reply without calls ends its step like any other step
// (settle): once nothing ends the run with it, its content is the output
// (contentOutput), or, when it answered nothing, the model is told so and
// the loop detector counts it (no_answer.go).

// bareReply is a free-form reply without calls, of request reqID;
// noAnswer says how it answered nothing (nil: its content is the output).
type bareReply struct {
	reqID    string
	reply    activities.ModelReply
	noAnswer *policies.NoAnswer
}

// settleBare ends a step on a reply without calls.
func (eng engine) settleBare(ctx workflow.Context, b bareReply) (bool, *AgentResult, *escalation, error) {
	r := eng.r
	if na := b.noAnswer; na != nil {
		id := r.outputs().recordNoAnswer(ctx, b.reqID, b.reply.Content, b.reply.Refusal, *na)
		esc, done, err := eng.settleLoop(ctx, stepEnd{events: func() []stepEvent { return []stepEvent{{nodeID: id, event: na.Event}} }})
		return done, nil, esc, err
	}
	done, res, err := r.outputs().contentOutput(ctx, b.reqID, b.reply.Content, b.reply.FinishReason)
	return done, res, nil, err
}

// bareReplyFirst: a run recorded before one-settle settled a reply
// without calls before asking what ends the run (an edit, a cancellation,
// a switch). Asked only when one of them is there, the one time the
// orders differ.
func (eng engine) bareReplyFirst(ctx workflow.Context) bool {
	r := eng.r
	if !r.life.Interrupting() && ctx.Err() == nil && !r.life.Switching() {
		return false
	}
	return versionOf(ctx, versionOneSettle, 1) < 1
}
