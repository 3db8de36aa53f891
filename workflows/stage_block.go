package workflows

import (
	"encoding/json"
	"fmt"
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// block fails a call the loop ladder's explore rung forbade (this exact
// tool and these arguments); the others go on to approval, or straight to
// routing when their tool needs none for these arguments (asks).
func (p *pipeline) block(ctx workflow.Context, c *stepCall, args json.RawMessage) {
	c.resolved = args
	if isBlocked(p.r.run, c.tool.Name, args) {
		p.fail(ctx, c, blockedText(c.tool.Name), policies.Blocked)
		return
	}
	if c.tool.Approval.MayAsk() && !p.ledgerAnswers(ctx, c, args) && p.asks(ctx, c, c.tool, args) {
		p.approval(ctx, c, c.tool, args, func(tool config.Tool, decided json.RawMessage) { p.route(ctx, c, tool, decided) })
		return
	}
	p.route(ctx, c, c.tool, args)
}

// isBlocked says whether the loop ladder blocked this exact call.
func isBlocked(run *Run, tool string, args []byte) bool {
	return len(run.Blocked) > 0 && slices.Contains(run.Blocked, policies.BlockKey(tool, args, toolVolatile(run, tool)))
}

func blockedText(tool string) string {
	return fmt.Sprintf("blocked: this exact call of %s was repeating in a loop; change the arguments or try another way", tool)
}
