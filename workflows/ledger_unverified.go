package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/ledger"
)

// again is a write whose latest try failed its check
// (ledger.UnverifiedWrite), asked for again. It is never simply run
// again: it takes that try's Idempotency-Key, and
// where the tool has a read-back, the read-back first learns whether the
// try acted after all. If it did, the call is answered with the try's
// result and does not run; if not, the write runs once more; if the
// read-back cannot tell, the call does not run (stage_unknown.go).
func (p *pipeline) again(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, try *Node) {
	c.keyOf = ledger.KeyOf(try)
	if !tool.Verify.ReadBack() {
		p.run(ctx, c, tool, args, 0)
		return
	}
	tryID, tried := try.ID, try.Output
	p.readBack(ctx, c, tool, decodedArgs(args), decodedOrNil(tried), func(ck signals.Check) {
		switch {
		case ck.Unknown:
			p.stillUnknown(ctx, c, tool, tryID, ck)
			return
		case !ck.Passed:
			p.run(ctx, c, tool, args, 0)
			return
		}
		ck.Reason = fmt.Sprintf("the write of %s took effect after all (its read-back passes now): answered with its result, not run again", tryID)
		if n := p.r.run.node(c.nodeID); n != nil {
			n.Check = &ck
		}
		p.reuse(ctx, c, tool, args, tryID, tried)
	})
}
