package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// repeatsItself says whether a write that just succeeded answered exactly
// as the previous try of the same write did (policies.NoOpRepeat): a tool
// that says "ok" and changes nothing. The loop detector then sees no
// progress (policies.NoOp); the call itself stays a success.
func (r *runner) repeatsItself(ctx workflow.Context, c *stepCall, tool config.Tool, result json.RawMessage) bool {
	if !writes(c, tool) || tool.Repeatable {
		return false
	}
	at := r.run.nodeIndex(c.nodeID)
	if at < 0 {
		return false
	}
	prev := r.ledger().SameWrite(ledgerName(c, tool), r.run.Nodes[at].Args, 0, at, func(m *Node) bool {
		return m.Ran && m.CheckOf == "" && m.Status != signals.StatusInvalidated
	})
	if prev == nil || prev.Status != signals.StatusCompleted || !policies.NoOpRepeat(false, prev.Output, result) {
		return false
	}
	return versionOf(ctx, versionNoOpWrites, 1) >= 1
}

// changedNothing: every call of an llm node's visit was a write that
// answered as its previous try did (repeatsItself), so the visit made no
// progress, as those calls in a free-form step make none. Only writes
// past the no-op-writes gate are ever so.
func changedNothing(calls []*stepCall) bool {
	for _, c := range calls {
		if !c.final && !c.noOp {
			return false
		}
	}
	return len(calls) > 0
}
