package person

import "github.com/unstuck-dev/unstuck/signals"

// A run that waits only for people continues as new when Temporal
// suggests it, and the next generation waits for the same things (the
// run's switch: package workflows/waiting, wired by workflows/waiting.go). These are what the switch
// reads of the waits to carry them, and how the next generation puts
// them back before its first message is taken, so an approval or a reply
// that reaches the run between generations lands as it would have in the
// one before.

// WaitingApprovals are the calls waiting for approval, in order;
// Decision is the decision that landed for call id and is not taken yet
// (nil: none); Reply is the reply that landed and is not taken yet.
func (p *Waits) WaitingApprovals() []string                 { return p.state.approvals.ids() }
func (p *Waits) Decision(id string) *signals.ApproveRequest { return p.state.approvals.decision(id) }
func (p *Waits) Reply() *signals.ReplyRequest               { return p.state.reply.reply }

// ReplyNode is the human node waiting for a reply ("" none); AtRung says
// whether it is the ladder's human rung's.
func (p *Waits) ReplyNode() string { return p.state.reply.node }
func (p *Waits) AtRung() bool      { return p.state.reply.rung }

// ExpectApproval lists call id as waiting for approval of tool again;
// KeepDecision lands the decision the generation before accepted for it.
func (p *Waits) ExpectApproval(id, tool string) { p.state.approvals.wait(id, tool) }
func (p *Waits) KeepDecision(id string, d *signals.ApproveRequest) {
	p.state.approvals.decide(id, d)
}

// Escalations are how many groups call id's approval asked before the
// one it waits for; KeepEscalations puts back the count the generation
// before carried (0: none).
// A human node's reply wait counts its groups the same way.
func (p *Waits) Escalations(id string) int {
	if r := &p.state.reply; r.waiting() && r.node == id {
		return r.level
	}
	return p.state.approvals.level(id)
}
func (p *Waits) KeepEscalations(id string, n int) {
	switch r := &p.state.reply; {
	case n <= 0:
	case r.waiting() && r.node == id:
		r.level = n
	default:
		p.state.approvals.setLevel(id, n)
	}
}

// Approved are the approvals of call id short of its approvers: N, in
// order; KeepApproved lands those the generation before accepted.
func (p *Waits) Approved(id string) []*signals.ApproveRequest { return p.state.approvals.earlierOf(id) }
func (p *Waits) KeepApproved(id string, approved []*signals.ApproveRequest) {
	for _, d := range approved {
		p.state.approvals.approve(id, d)
	}
}

// ExpectReply has the run wait at human node again (rung: the ladder's
// human rung's; agent: the run is with an agent of kind human): the next
// wait for a reply waits there (TakeHeld). KeepReply lands the reply the
// generation before accepted.
func (p *Waits) ExpectReply(node string, rung, agent bool) {
	r := &p.state.reply
	r.node, r.rung = node, rung
	r.held = node
	p.state.agent = agent
	r.ask = p.askOf(node, rung) // a reply before the wait resumes is checked as it will be
}
func (p *Waits) KeepReply(reply *signals.ReplyRequest) { p.state.reply.reply = reply }

// TakeHeld answers the human node carried over to wait at again, once
// ("" none).
func (p *Waits) TakeHeld() string {
	id := p.state.reply.held
	p.state.reply.held = ""
	return id
}

// EndApproval takes call id off the calls waiting for approval;
// ReleaseReply stops the wait for a reply at human node, if it waits
// there: an edit or a person's handoff took the run instead of the
// switch, and the wait is over.
func (p *Waits) EndApproval(id string) { p.state.approvals.end(id) }
func (p *Waits) ReleaseReply(node string) {
	r := &p.state.reply
	if node == "" || r.node != node {
		return
	}
	r.clear()
	p.host.Forget(node)
}
