package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
)

// repair answers arguments that failed the schema: rules first (no model),
// then one focused model request for what needs judgement, bounded by the
// agent's repair.max_attempts. Rules answer at once; a model request takes
// a while: both run in a coroutine the other calls do not wait on.
func (p *pipeline) repair(ctx workflow.Context, c *stepCall, args json.RawMessage, why string) {
	if p.r.mend().Left(c.nodeID) <= 0 {
		p.fail(ctx, c, why, policies.Structural)
		return
	}
	var fixed json.RawMessage
	var problem string
	p.async(ctx, func(g workflow.Context) {
		fixed, problem = p.r.mend().Before(g, c.nodeID, c.tool, args, why)
	}, func() {
		if problem != "" {
			p.fail(ctx, c, problem, policies.Structural)
			return
		}
		p.block(ctx, c, fixed)
	})
}
