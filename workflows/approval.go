package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// approvalWaits are the calls waiting for a person's decision, each with
// the tool to approve (the call's, or a fallback standing in), and the
// decisions that landed and the waiting code has not taken yet.
type approvalWaits struct {
	tools     map[string]string
	decisions map[string]*signals.ApproveRequest
}

func newApprovalWaits() approvalWaits {
	return approvalWaits{tools: map[string]string{}, decisions: map[string]*signals.ApproveRequest{}}
}

// wait lists call id as waiting for approval of tool; end takes it off.
func (a *approvalWaits) wait(id, tool string) { a.tools[id] = tool }
func (a *approvalWaits) end(id string)        { delete(a.tools, id) }

// waiting says whether any call waits; toolOf whether id does, for which
// tool.
func (a *approvalWaits) waiting() bool { return len(a.tools) > 0 }
func (a *approvalWaits) toolOf(id string) (string, bool) {
	t, ok := a.tools[id]
	return t, ok
}

// ids are the waiting calls, in order.
func (a *approvalWaits) ids() []string { return sortedIDs(a.tools) }

// decide lands a decision for id; decision peeks at it; take answers it
// once.
func (a *approvalWaits) decide(id string, d *signals.ApproveRequest) { a.decisions[id] = d }
func (a *approvalWaits) decision(id string) *signals.ApproveRequest  { return a.decisions[id] }
func (a *approvalWaits) take(id string) *signals.ApproveRequest {
	d := a.decisions[id]
	delete(a.decisions, id)
	return d
}

// approvalOutcome is how a wait for approval ended.
type approvalOutcome struct {
	decision    *signals.ApproveRequest
	timedOut    bool
	interrupted bool // an edit came first (interrupt.go)
	// held: the run continues as new while the call waits, and the next
	// generation waits for the same decision (waiting_continue.go).
	held bool
}

// awaitApproval holds a call (status awaiting_approval, listed in
// status.pending_approvals, phase awaiting_approval) until a person's
// approve message settles it or the agent's human_timeout passes. Other
// calls of the step go on meanwhile.
func (r *runner) awaitApproval(ctx workflow.Context, nodeID, tool string) (approvalOutcome, error) {
	r.run.AwaitingApproval(nodeID, workflow.Now(ctx))
	r.approvals.wait(nodeID, tool)
	held := false
	defer func() {
		if !held {
			// A later wait of the call (for its fallback's own approval)
			// has a whole timeout of its own.
			r.approvals.end(nodeID)
			r.waits.Forget(nodeID)
		}
	}()
	if err := r.approvalPhase(ctx); err != nil {
		return approvalOutcome{}, err
	}
	end, _, err := r.waitForPerson(ctx, personWait{
		node: nodeID, summary: fmt.Sprintf("wait for approval of %s (%s)", nodeID, tool),
		answered: func() bool { return r.approvals.decision(nodeID) != nil },
		edits:    true, switches: true,
	})
	if err != nil {
		r.approvals.end(nodeID)
		return approvalOutcome{}, err
	}
	if end == waitSwitching {
		// The decision is still wanted: the call stays listed (and may
		// take a decision until the run continues as new, which carries it).
		held = true
		return approvalOutcome{held: true}, nil
	}
	r.approvals.end(nodeID)
	if end == waitInterrupted {
		return approvalOutcome{interrupted: true}, nil
	}
	if err := r.approvalPhase(ctx); err != nil {
		return approvalOutcome{}, err
	}
	if end == waitTimedOut {
		return approvalOutcome{timedOut: true}, nil
	}
	return approvalOutcome{decision: r.approvals.take(nodeID)}, nil
}

// approvalPhase keeps the phase at awaiting_approval while any call waits.
func (r *runner) approvalPhase(ctx workflow.Context) error {
	want := signals.PhaseRunning
	if r.approvals.waiting() {
		want = signals.PhaseAwaitingApproval
	}
	if r.run.Phase == want {
		r.showDetails(ctx) // the calls waiting changed
		return nil
	}
	return r.setPhase(ctx, want)
}

// decide applies a decision: the tool and arguments to run, or why the
// call does not run. Each decision is an approval node in the trace.
func (r *runner) decide(ctx workflow.Context, nodeID string, tool config.Tool, args json.RawMessage, o approvalOutcome) (config.Tool, json.RawMessage, string) {
	record := func(status signals.NodeStatus, errText string, out any) {
		var in json.RawMessage
		if o.decision != nil {
			in = mustJSON(o.decision)
		}
		n := r.addNode(ctx, Node{Node: signals.Node{
			Kind: signals.KindApproval, Status: status, Parents: []string{nodeID},
			Tool: tool.Name, Args: in, Error: errText,
		}, Step: r.run.Step})
		if out != nil {
			n.Output = mustJSON(out)
		}
	}
	decision := "timeout"
	if !o.timedOut {
		decision = o.decision.Decision
	}
	r.count(ctx, MetricApprovals, 1, "decision", decision)
	if o.timedOut {
		why := fmt.Sprintf("no approval decision within human_timeout (%s)", r.run.Spec.Agent.Policies.HumanTimeout.D())
		record(signals.StatusFailed, why, nil)
		return tool, nil, why
	}
	d := o.decision
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
		t, ok := r.run.Spec.AgentTool(d.Call.Tool)
		if !ok {
			why := "the approver's replacement names " + unknownTool(d.Call.Tool, toolNames(r.run.Spec))
			record(signals.StatusFailed, why, nil)
			return tool, nil, why
		}
		tool, args = t, d.Call.Args
	}
	if problem := r.checkArgs(tool, args); problem != "" {
		why := "the approver's arguments are refused: " + problem
		record(signals.StatusFailed, why, nil)
		return tool, nil, why
	}
	record(signals.StatusCompleted, "", map[string]any{"decision": d.Decision, "tool": tool.Name, "args": args})
	if d.Decision == signals.DecisionModify || d.Decision == signals.DecisionReplace {
		if n := r.run.node(nodeID); n != nil {
			n.RanAs = mustJSON(map[string]any{"decision": d.Decision, "by": d.By, "reason": d.Reason, "tool": tool.Name, "args": args})
		}
	}
	return tool, args, ""
}

// approveWanted says whether a decision can settle a call now.
func (r *runner) approveWanted(req signals.ApproveRequest) error {
	n := r.run.node(req.CallID)
	if n == nil || n.Kind != signals.KindCall {
		return fmt.Errorf("approve: %q is not a call of this run (status lists pending_approvals)", req.CallID)
	}
	waitsFor, waiting := r.approvals.toolOf(req.CallID)
	if n.Status != signals.StatusAwaitingApproval || !waiting {
		return fmt.Errorf("approve: call %s is %s, not awaiting approval", req.CallID, n.Status)
	}
	if r.approvals.decision(req.CallID) != nil {
		return fmt.Errorf("approve: call %s already has a decision", req.CallID)
	}
	// Arguments a person gives are checked now, so a mistake is answered
	// and the call keeps waiting for a better decision.
	tool, _ := r.run.Spec.Tool(waitsFor) // the call's tool, or a fallback standing in
	args := req.Args
	if req.Decision == signals.DecisionReplace {
		t, ok := r.run.Spec.AgentTool(req.Call.Tool)
		if !ok {
			return fmt.Errorf("approve: replace names %s", unknownTool(req.Call.Tool, toolNames(r.run.Spec)))
		}
		tool, args = t, req.Call.Args
	}
	if req.Decision == signals.DecisionModify || req.Decision == signals.DecisionReplace {
		if problem := r.checkArgs(tool, args); problem != "" {
			return fmt.Errorf("approve: %s", problem)
		}
	}
	return nil
}

// acceptApproval is where a valid decision lands, from the update or the
// signal.
func (r *runner) acceptApproval(req signals.ApproveRequest) (signals.ApproveResult, error) {
	if err := r.approveWanted(req); err != nil {
		return signals.ApproveResult{}, err
	}
	copied := req
	r.approvals.decide(req.CallID, &copied)
	return signals.ApproveResult{CallID: req.CallID, Decision: req.Decision}, nil
}

// pendingApprovals lists the calls waiting for a decision, for status.
func (r *runner) pendingApprovals() []signals.PendingApproval {
	out := []signals.PendingApproval{}
	for _, n := range r.run.Nodes {
		if n.Kind == signals.KindCall && n.Status == signals.StatusAwaitingApproval {
			tool := n.AskedTool()
			if t, ok := r.approvals.toolOf(n.ID); ok {
				tool = t // a fallback standing in for the call's tool
			}
			out = append(out, signals.PendingApproval{CallID: n.ID, Tool: tool, Args: n.Args})
		}
	}
	return out
}
