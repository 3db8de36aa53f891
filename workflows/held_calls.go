package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/edit"
)

// heldCall is a call of a resumed step that was held for approval, or
// waited on such a call, when the run continued as new: it walks the
// pipeline again under its own node (so its call id stays the one people
// were shown). A call held for approval goes with the arguments it waited
// with (references resolved, repaired), keeping the State path it writes.
func (r *runner) heldCall(ctx workflow.Context, reqID string, tc activities.ToolCall, resume *editResume) *stepCall {
	if resume == nil || resume.Waiting == nil {
		return nil
	}
	n := edit.ValidCall(&r.run.Trace, reqID, tc.ID)
	if n == nil || (n.Status != signals.StatusAwaitingApproval && n.Status != signals.StatusPending) {
		return nil
	}
	if n.Status == signals.StatusAwaitingApproval && len(n.Args) > 0 {
		tc.Args = argsKeepingOutputPath(n.Args, tc.Args)
	}
	return newPipeline(ctx, r).prepareCall(ctx, n.ID, tc)
}

// heldCalls says whether a step has calls held for the next generation.
func heldCalls(calls []*stepCall) bool {
	for _, c := range calls {
		if c.held || !c.done {
			return true
		}
	}
	return false
}
