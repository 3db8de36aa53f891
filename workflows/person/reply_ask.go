package person

import (
	"cmp"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// A graph's human node and the ladder's human rung ask for a reply as a
// tool's call asks for approval (config/human_approval.go): of by:'s
// groups, each reply signed by a member; within the block's timeout,
// then rejected (the wait times out), approved (the run goes on as
// answered) or escalated to the next group with a whole timeout. A
// person agent's run asks anyone, within human_timeout.

// replyMetric is the tool tag the approval metrics count a reply's wait
// under.
const replyMetric = "(reply)"

// waitReply waits at human node nodeID for a reply, asking the reply
// ask's groups in turn when its deadline escalates: each wait but the
// last that times out begins the next with a whole timeout.
func (p *Waits) waitReply(ctx workflow.Context, nodeID string) (End, time.Duration, error) {
	h, r := p.host, &p.state.reply
	w := Wait{
		Node: nodeID, Summary: "wait for a person's reply (" + nodeID + ")",
		Answered: func() bool { return r.reply != nil },
		Edits:    true, Switches: true, Notify: true,
	}
	d := p.replyDeadline(ctx)
	shown := (r.ask.Named() || d.Bounded()) && p.host.Gate(ctx, GateHumanPeople)
	if d.Bounded() {
		w.Timeout, w.PastHalf = d.Timeout.D(), func(ctx workflow.Context) {
			h.Count(ctx, MetricApprovalsPastHalf, 1, "tool", replyMetric)
			h.ShowDetails(ctx)
		}
	}
	for {
		since := h.Started(ctx, nodeID)
		r.due = due{since, since.Add(cmp.Or(w.Timeout, h.HumanTimeout()))}
		if shown {
			h.ShowDetails(ctx) // the inbox lists the wait, with its deadline
		}
		end, timeout, err := p.Wait(ctx, w)
		if err != nil || end != TimedOut || !policies.Escalates(d.Decides(), r.level, r.ask.Levels()) {
			return end, timeout, err
		}
		// The next group is asked, with a whole timeout of its own.
		r.level++
		h.Forget(nodeID)
		h.Count(ctx, MetricApprovalsEscalated, 1, "tool", replyMetric)
	}
}

// replyDeadline is the reply ask's own deadline when it has one and the
// run takes the change, else none (human_timeout, then no reply).
func (p *Waits) replyDeadline(ctx workflow.Context) config.Deadline {
	if d := p.state.reply.ask.Deadline; d.Bounded() && p.host.Gate(ctx, GateHumanPeople) {
		return d
	}
	return config.Deadline{}
}

// replyTimedOut settles human node nodeID, whose wait of timeout passed
// with no reply: then: approve lets the run go on (byDeadline), anything
// else is no reply.
func (p *Waits) replyTimedOut(ctx workflow.Context, nodeID string, timeout time.Duration) replied {
	d := p.replyDeadline(ctx)
	if d.Bounded() && d.Decides() == config.ThenApprove {
		p.host.FinishNode(ctx, nodeID, map[string]any{"by_deadline": true, "decision": config.ThenApprove, "timeout": timeout.String()}, "")
		return replied{node: nodeID, end: TimedOut, byDeadline: true}
	}
	within := "human_timeout"
	if d.Bounded() {
		within = "its approval's timeout"
	}
	p.host.FinishNode(ctx, nodeID, nil, fmt.Sprintf("no reply within %s (%s)", within, timeout))
	return replied{node: nodeID, end: TimedOut}
}

// askOf is who may reply at human node id and by when, as the spec says:
// the human rung's approval (rung), a graph human node's, or anyone's.
func (p *Waits) askOf(id string, rung bool) config.Approval {
	spec := p.host.Spec()
	if rung {
		return spec.Agent.Policies.HumanApproval
	}
	n := p.host.Trace().Node(id)
	if n == nil || n.GraphNode == "" || spec.Agent.Graph == nil {
		return config.Approval{}
	}
	return spec.Agent.Graph.Nodes[n.GraphNode].Approval
}

// checkSignedReply says why req cannot answer the wait, whose ask names
// who may reply: the run's chain and workflow id and the human node are
// bound into the signature, so it answers this node of this run and no
// other.
func (p *Waits) checkSignedReply(ctx workflow.Context, req signals.ReplyRequest) error {
	r := &p.state.reply
	info := workflow.GetInfo(ctx)
	ask := sign.Ask{People: p.host.Spec().People, Groups: sign.Answering(r.ask.Groups(), r.level), Needed: 1}
	_, err := ask.CheckReply(sign.ForReply(info.FirstRunID, info.WorkflowExecution.ID, r.node, req), req.Signature)
	return err
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
