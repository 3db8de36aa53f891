package person

import (
	"cmp"
	"time"

	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// PendingApprovals lists the calls waiting for a decision, for status,
// as of now (the run's time as it last showed its details): each call's
// wait, and whether it passed half its timeout.
func (p *Waits) PendingApprovals(now time.Time) []signals.PendingApproval {
	out := []signals.PendingApproval{}
	a := &p.state.approvals
	for _, n := range p.host.Trace().Nodes {
		if n.Kind == signals.KindCall && n.Status == signals.StatusAwaitingApproval {
			tool := n.AskedTool()
			if t, ok := a.toolOf(n.ID); ok {
				tool = t // a fallback standing in for the call's tool
			}
			// Since the node began to wait, until the wait notes its start
			// and deadline (the run's phase may show it first).
			pending := signals.PendingApproval{CallID: n.ID, Tool: tool, Args: n.Args, Escalations: a.level(n.ID), WaitingSince: n.At}
			if d, ok := a.dueOf(n.ID); ok {
				pending.WaitingSince, pending.Deadline = d.since, d.deadline
				pending.Overdue = policies.PastHalf(d.since, d.deadline, now)
			}
			if named, ok := p.named(tool); ok {
				pending.Answering = sign.Answering(named.Groups(), a.level(n.ID))
				pending.ApprovedBy = a.approvers(n.ID)
			}
			out = append(out, pending)
		}
	}
	return out
}

// PendingReply is the human node waiting for a reply, for status, as of
// now (nil: none waits).
func (p *Waits) PendingReply(now time.Time) *signals.PendingReply {
	r := &p.state.reply
	if !r.waiting() {
		return nil
	}
	out := &signals.PendingReply{NodeID: r.node, Why: r.why, Escalations: r.level, WaitingSince: r.due.since, Deadline: r.due.deadline}
	if n := p.host.Trace().Node(r.node); n != nil {
		out.GraphNode = cmp.Or(r.graphNode, n.GraphNode)
		if out.WaitingSince.IsZero() {
			out.WaitingSince = n.At
		}
	}
	if !r.due.deadline.IsZero() {
		out.Overdue = policies.PastHalf(r.due.since, r.due.deadline, now)
	}
	if r.ask.Named() {
		out.Answering = sign.Answering(r.ask.Groups(), r.level)
	}
	return out
}
