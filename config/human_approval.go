package config

import "slices"

// A person's reply is asked as a tool's call is approved: a graph's human
// node (nodes: {H: {human: true, approval: {...}}}) and the ladder's
// human rung (policies.human_approval) take a tool's approval block,
// {when, by, timeout, then}: asked only when when holds, of by:'s groups
// (each reply signed by a member), within timeout, then rejected (no
// reply: the node's !ok edge, the rung climbs on), approved (the node
// goes on as answered) or escalated to the next group. A reply is one
// person's answer, so approvers: N is a tool's alone.

// HumanApprovals are the approval blocks of agent a's waits for a reply:
// its graph's human nodes' and its human rung's, those written.
func (a Agent) HumanApprovals() []Approval {
	var out []Approval
	if !a.Policies.HumanApproval.IsZero() {
		out = append(out, a.Policies.HumanApproval)
	}
	if a.Graph != nil {
		for _, name := range sortedKeys(a.Graph.Nodes) {
			if n := a.Graph.Nodes[name]; !n.Approval.IsZero() {
				out = append(out, n.Approval)
			}
		}
	}
	return out
}

// humanApprovals checks the approval blocks of every agent's waits for a
// reply against people.
func (c *checker) humanApprovals(agents []Agent, people *People) {
	for i, a := range agents {
		ap := path{"agents", i}
		if r := a.Policies.HumanApproval; !r.IsZero() {
			p := ap.key("policies").key("human_approval")
			c.humanApproval(p, r, people)
			if r.Deadline.Decides() == ThenApprove {
				c.add(p.key("then"), "the human rung's deadline cannot approve: a loop no one answered climbs on (then: reject or escalate)")
			}
			if !slices.Contains(a.Policies.Escalation, RungHuman) {
				c.add(p, "human_approval applies to the ladder's human rung, which policies.escalation does not list")
			}
		}
		if a.Graph == nil {
			continue
		}
		for _, name := range sortedKeys(a.Graph.Nodes) {
			n := a.Graph.Nodes[name]
			p := ap.key("graph").key("nodes").key(name).key("approval")
			switch {
			case n.Approval.IsZero():
			case !n.Human:
				c.add(p, "approval applies to human nodes only (a tool node's calls take its tool's approval)")
			default:
				c.humanApproval(p, n.Approval, people)
			}
		}
	}
}

// humanApproval checks the approval block a of a wait for a reply.
func (c *checker) humanApproval(p path, a Approval, people *People) {
	switch {
	case !a.block():
		c.add(p, "approval %q: a wait for a reply takes the block {when, by, timeout, then} (it always asks; when: asks only sometimes)", a.Mode)
		return
	case a.Needed() > 1:
		c.add(p.key("approvers"), "approvers applies to a tool's approvals: a reply is one person's answer")
	}
	c.approval(p, a)
	c.approvers(p, a, people)
}
