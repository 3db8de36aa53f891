package person

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/config"
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

// askOf is who may reply at human node id and by when, as the spec says:
// the human rung's approval (rung), a graph human node's, or anyone's.
func (p *Waits) askOf(id string, rung bool) config.Approval {
	spec := p.host.Spec()
	if rung {
		return spec.Agent.Policies.HumanApproval
	}
	n := p.host.Trace().Node(id)
	if n == nil || n.GraphNode == "" {
		return config.Approval{}
	}
	return p.host.HumanApproval(n.GraphNode)
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
