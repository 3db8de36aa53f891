package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
)

// A reply cut off by its length (finish_reason "length") in the middle of
// a call's arguments would hand the pipeline a call it cannot run. It is
// asked again once, under the same request node, with room for a whole
// reply: the model's max_output_tokens (config.Model.Window). When that
// is unknown, or the second reply is cut off too, the call goes on as it
// is: the pipeline answers it with an error, and the model tries again.

// cutOffCall says whether the reply was cut off inside a call's
// arguments.
func cutOffCall(reply activities.ModelReply) bool {
	if reply.FinishReason != "length" {
		return false
	}
	for _, tc := range reply.ToolCalls {
		if !json.Valid([]byte(tc.Args)) {
			return true
		}
	}
	return false
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
