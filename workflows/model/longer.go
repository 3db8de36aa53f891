package model

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

// CutOff says whether the reply was cut off inside a call's arguments.
// Arguments the repair pipeline's rules read whole (repair.RepairText: a
// fence, lenient JSON) are not: the pipeline runs them like any others,
// and only arguments no rule can read are asked again (version
// cut-off-repair, asked only when the two answers differ; before, any
// arguments that were not JSON were asked again).
func (c *Call) CutOff(ctx workflow.Context, reply activities.ModelReply) bool {
	if reply.FinishReason != "length" {
		return false
	}
	broken, unreadable := false, false
	for _, tc := range reply.ToolCalls {
		if json.Valid([]byte(tc.Args)) {
			continue
		}
		broken = true
		unreadable = unreadable || !c.run.RepairReads(tc.Name, tc.Args)
	}
	if broken == unreadable {
		return broken
	}
	return c.version(ctx, c.gates.CutOffRepair, 1) < 1
}

// LongerReply answers the max_tokens to ask request reqID again with, 0
// for none; the request node's output records it (Shown).
func (c *Call) LongerReply(ctx workflow.Context, reqID string) int {
	_, output, known := c.spec.Model.At(c.s.ModelAt).Window()
	if !known || output <= 0 || c.version(ctx, c.gates.LongerReply, 1) < 1 {
		return 0
	}
	if c.mem.longer == nil {
		c.mem.longer = map[string]int{}
	}
	c.mem.longer[reqID] = output
	workflow.GetLogger(ctx).Info("reply cut off in a call's arguments: asked again with room", "request", reqID, "max_tokens", output)
	return output
}
