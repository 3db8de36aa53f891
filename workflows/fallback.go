package workflows

import "github.com/unstuck-dev/unstuck/signals"

// A call a fallback served is visible in the trace: its node's Tool is the
// tool that ran and FallbackOf the tool the call asked for; the status
// query counts them. What the run decides by (loops, blocked calls, the
// effect ledger, the model's conversation) goes by the tool asked for,
// Node.AskedTool, whichever tool served it.

// servedBy records on a call's node that the fallback `tool` runs it, as
// the tool activity starts. A call routed to a fallback (pipeline.route)
// and then replaced by a person with another tool is not marked: the
// person's replacement shows in the approval.
func (r *runner) servedBy(c *stepCall, tool string) {
	n := r.run.node(c.nodeID)
	if n == nil || c.fallback == "" || tool != c.fallback || n.AskedTool() == tool {
		return
	}
	n.FallbackOf, n.Tool = n.AskedTool(), tool
}

// fallbacks counts the calls of the run a fallback served.
func (r *runner) fallbacks() int {
	count := 0
	for i := range r.run.Nodes {
		if n := &r.run.Nodes[i]; n.Kind == signals.KindCall && n.FallbackOf != "" {
			count++
		}
	}
	return count
}
