package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies/repair"
)

// A reply cut off by its length (finish_reason "length") in the middle of
// a call's arguments would hand the pipeline a call it cannot run. It is
// asked again once, under the same request node, with room for a whole
// reply: the model's max_output_tokens (config.Model.Window). When that
// is unknown, or the second reply is cut off too, the call goes on as it
// is: the pipeline answers it with an error, and the model tries again.

// cutOffCall says whether the reply was cut off inside a call's
// arguments. Arguments the repair pipeline's rules read whole
// (repair.RepairText: a fence, lenient JSON) are not: the pipeline runs
// them like any others, and only arguments no rule can read are asked
// again (version cut-off-repair, asked only when the two answers differ;
// before, any arguments that were not JSON were asked again).
func (r *runner) cutOffCall(ctx workflow.Context, reply activities.ModelReply) bool {
	if reply.FinishReason != "length" {
		return false
	}
	broken, unreadable := false, false
	for _, tc := range reply.ToolCalls {
		if json.Valid([]byte(tc.Args)) {
			continue
		}
		broken = true
		unreadable = unreadable || !r.repairReads(tc)
	}
	if broken == unreadable {
		return broken
	}
	return versionOf(ctx, versionCutOffRepair, 1) < 1
}

// repairReads says whether the pipeline would read a call's arguments
// whole by rule (repairText) if it ran them.
func (r *runner) repairReads(tc activities.ToolCall) bool {
	return r.run.Spec.Agent.Policies.Repair.MaxAttempts > 0 && r.knownTool(tc.Name) &&
		repair.RepairText(tc.Args).JSON != nil
}

// longerReply answers the max_tokens to ask request reqID again with, 0
// for none; the request node's output records it.
func (r *runner) longerReply(ctx workflow.Context, reqID string) int {
	_, output, known := r.run.Spec.Model.At(r.run.ModelAt).Window()
	if !known || output <= 0 || versionOf(ctx, versionLongerReply, 1) < 1 {
		return 0
	}
	if r.longerReplies == nil {
		r.longerReplies = map[string]int{}
	}
	r.longerReplies[reqID] = output
	workflow.GetLogger(ctx).Info("reply cut off in a call's arguments: asked again with room", "request", reqID, "max_tokens", output)
	return output
}
