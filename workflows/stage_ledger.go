package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
)

// ledger is where the effect ledger will answer a write re-issued after an
// edit with its recorded result instead of running it twice (the tool's
// reexecute: reuse | ask). Until edits exist nothing is re-issued, so every
// call goes on to run.
func (p *pipeline) ledger(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage) {
	p.run(ctx, c, tool, args, 0)
}
