package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// refusal answers a tool that refused the arguments (invalid_args): the
// refusal's message is parsed into repairs (or the model is asked) beside
// the other calls, and the call is issued again with arguments it has not
// tried; otherwise the refusal settles the call.
func (p *pipeline) refusal(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, attempt int, refused error) {
	var fixed json.RawMessage
	var ok bool
	p.async(ctx, func(g workflow.Context) {
		fixed, ok = p.r.mend().After(g, c.nodeID, tool, args, errorText(refused))
	}, func() {
		if !ok || p.r.mend().Tried(c.nodeID, fixed) {
			p.settle(ctx, c, tool, nil, refused)
			return
		}
		c.resolved = fixed
		p.run(ctx, c, tool, fixed, attempt+1)
	})
}

// canRepairRefusal says whether a tool's refusal (invalid_args) may be
// answered by repairing and re-issuing the call. Never for a tool that
// may need approval: a person approved those arguments, not repaired
// ones, and repaired ones might meet the condition (approval: {when})
// the call's did not.
func (p *pipeline) canRepairRefusal(ctx workflow.Context, nodeID string, tool config.Tool, args json.RawMessage, err error) bool {
	r := p.r
	if err == nil || cancelled(ctx, err) || failureClass(err) != policies.InvalidArgs {
		return false
	}
	if r.mend().Left(nodeID) <= 0 {
		return false
	}
	if tool.Approval.MayAsk() {
		return false
	}
	r.mend().Tried(nodeID, args)
	return true
}
