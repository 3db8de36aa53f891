package person

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// Decide applies the outcome of call nodeID's wait for approval: the tool
// and arguments to run, or why the call does not run. Each decision is an
// approval node in the trace.
func (p *Waits) Decide(ctx workflow.Context, nodeID string, tool config.Tool, args json.RawMessage, o Outcome) (config.Tool, json.RawMessage, string) {
	h := p.host
	record := func(status signals.NodeStatus, errText string, out any) {
		var in any
		var by string
		if o.Decision != nil {
			in = o.Decision
			if tool.Approval.Named() {
				by = o.Decision.By // signed: the person, not free text
			}
		}
		h.AddNode(ctx, signals.Node{
			Kind: signals.KindApproval, Status: status, Parents: []string{nodeID},
			Tool: tool.Name, Error: errText, By: by,
		}, in, out)
	}
	decision := "timeout"
	switch {
	case !o.TimedOut:
		decision = o.Decision.Decision
	case o.Deadline.Decides() == config.ThenApprove:
		decision = "timeout_approve"
	}
	h.Count(ctx, MetricApprovals, 1, "decision", decision)
	p.recordEarlier(ctx, nodeID, tool, o.Earlier)
	if o.TimedOut && !o.Deadline.Bounded() {
		why := fmt.Sprintf("no approval decision within human_timeout (%s)", h.Spec().Agent.Policies.HumanTimeout.D())
		record(signals.StatusFailed, why, nil)
		return tool, nil, why
	}
	if o.TimedOut {
		return p.decideByDeadline(ctx, nodeID, tool, args, o.Deadline)
	}
	d := o.Decision
	switch d.Decision {
	case signals.DecisionReject:
		why := "rejected by a person"
		if d.By != "" {
			why = "rejected by " + d.By
		}
		if d.Reason != "" {
			why += ": " + d.Reason
		}
		record(signals.StatusCompleted, "", map[string]string{"decision": d.Decision})
		return tool, nil, why
	case signals.DecisionModify:
		args = d.Args
	case signals.DecisionReplace:
		t, ok := h.Spec().AgentTool(d.Call.Tool)
		if !ok {
			why := "the approver's replacement names " + h.UnknownTool(d.Call.Tool)
			record(signals.StatusFailed, why, nil)
			return tool, nil, why
		}
		tool, args = t, d.Call.Args
	}
	if problem := h.CheckArgs(tool, args); problem != "" {
		why := "the approver's arguments are refused: " + problem
		record(signals.StatusFailed, why, nil)
		return tool, nil, why
	}
	record(signals.StatusCompleted, "", map[string]any{"decision": d.Decision, "tool": tool.Name, "args": args})
	if d.Decision == signals.DecisionModify || d.Decision == signals.DecisionReplace {
		h.RanAs(nodeID, map[string]any{"decision": d.Decision, "by": d.By, "reason": d.Reason, "tool": tool.Name, "args": args})
	}
	return tool, args, ""
}

// recordEarlier records the approvals of call nodeID short of its
// approvers: N, each an approval node naming its person.
func (p *Waits) recordEarlier(ctx workflow.Context, nodeID string, tool config.Tool, earlier []*signals.ApproveRequest) {
	for i, e := range earlier {
		p.host.Count(ctx, MetricApprovals, 1, "decision", e.Decision)
		p.host.AddNode(ctx, signals.Node{
			Kind: signals.KindApproval, Status: signals.StatusCompleted, Parents: []string{nodeID},
			Tool: tool.Name, By: e.By,
		}, e, map[string]any{"decision": e.Decision, "approved": i + 1, "needed": tool.Approval.Needed()})
	}
}

// ApproveWanted says whether a decision can settle a call now: the call
// waits, and, for a tool whose approval names who may answer, the
// decision is signed by one of them (checkSigned).
func (p *Waits) ApproveWanted(ctx workflow.Context, req signals.ApproveRequest) error {
	h, a := p.host, &p.state.approvals
	n := h.Trace().Node(req.CallID)
	if n == nil || n.Kind != signals.KindCall {
		return fmt.Errorf("approve: %q is not a call of this run (status lists pending_approvals)", req.CallID)
	}
	waitsFor, waiting := a.toolOf(req.CallID)
	if n.Status != signals.StatusAwaitingApproval || !waiting {
		return fmt.Errorf("approve: call %s is %s, not awaiting approval", req.CallID, n.Status)
	}
	if a.decision(req.CallID) != nil {
		return fmt.Errorf("approve: call %s already has a decision", req.CallID)
	}
	if named, ok := p.named(waitsFor); ok {
		if err := p.checkSigned(ctx, named, waitsFor, req); err != nil {
			return err
		}
	}
	// Arguments a person gives are checked now, so a mistake is answered
	// and the call keeps waiting for a better decision.
	tool, _ := h.Spec().Tool(waitsFor) // the call's tool, or a fallback standing in
	args := req.Args
	if req.Decision == signals.DecisionReplace {
		t, ok := h.Spec().AgentTool(req.Call.Tool)
		if !ok {
			return fmt.Errorf("approve: replace names %s", h.UnknownTool(req.Call.Tool))
		}
		tool, args = t, req.Call.Args
	}
	if req.Decision == signals.DecisionModify || req.Decision == signals.DecisionReplace {
		if problem := h.CheckArgs(tool, args); problem != "" {
			return fmt.Errorf("approve: %s", problem)
		}
	}
	return nil
}

// AcceptApproval is where a valid decision lands, from the update or the
// signal. Under approvers: N, an approval short of the N-th distinct
// person's is kept until then; a reject settles the call at once.
func (p *Waits) AcceptApproval(ctx workflow.Context, req signals.ApproveRequest) (signals.ApproveResult, error) {
	if err := p.ApproveWanted(ctx, req); err != nil {
		return signals.ApproveResult{}, err
	}
	a := &p.state.approvals
	copied := req
	res := signals.ApproveResult{CallID: req.CallID, Decision: req.Decision}
	waitsFor, _ := a.toolOf(req.CallID)
	named, ok := p.named(waitsFor)
	if !ok || named.Needed() == 1 || !p.host.Gate(ctx, GatePeople) {
		a.decide(req.CallID, &copied)
		return res, nil
	}
	res.Needed = named.Needed()
	res.Approved = len(a.earlierOf(req.CallID))
	if req.Decision == signals.DecisionApprove {
		res.Approved++
		if res.Approved < res.Needed {
			a.approve(req.CallID, &copied)
			return res, nil
		}
	}
	a.decide(req.CallID, &copied)
	return res, nil
}

// ApprovalTool is the tool call id waits for approval of (the call's, or
// a fallback standing in), if it waits.
func (p *Waits) ApprovalTool(id string) (string, bool) { return p.state.approvals.toolOf(id) }
