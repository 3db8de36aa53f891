package person

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// named is the approval of tool, the tool call id waits for (the call's,
// or a fallback standing in), when it names who may answer.
func (p *Waits) named(tool string) (config.Approval, bool) {
	t, ok := p.host.Spec().Tool(tool)
	if !ok || !t.Approval.Named() {
		return config.Approval{}, false
	}
	return t.Approval, true
}

// checkSigned says why req cannot settle call id, waiting for tool whose
// approval names who may answer (package approvals/sign): the run's chain
// and workflow id are bound into the signature, so it settles this call
// of this run and no other.
func (p *Waits) checkSigned(ctx workflow.Context, a config.Approval, tool string, req signals.ApproveRequest) error {
	info := workflow.GetInfo(ctx)
	ask := sign.Ask{
		People:   p.host.Spec().People,
		Groups:   sign.Answering(a.Groups(), p.state.approvals.level(req.CallID)),
		Needed:   a.Needed(),
		Approved: p.state.approvals.approvers(req.CallID),
	}
	_, err := ask.Check(sign.For(info.FirstRunID, info.WorkflowExecution.ID, tool, req), req.Signature)
	return err
}
