package person

import (
	"cmp"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// Outcome is how a wait for approval ended.
type Outcome struct {
	Decision    *signals.ApproveRequest
	TimedOut    bool
	Interrupted bool // an edit came first
	// Held: the run continues as new while the call waits, and the next
	// generation waits for the same decision.
	Held bool
	// Deadline is the approval's own deadline that timed out (zero: the
	// agent's human_timeout did).
	Deadline config.Deadline
	// Earlier are the approvals short of approvers: N that came before the
	// decision (or the timeout), each to be recorded naming its person.
	Earlier []*signals.ApproveRequest
}

// AwaitApproval holds call nodeID (status awaiting_approval, listed in
// status.pending_approvals, phase awaiting_approval) until a person's
// approve message settles it or its deadline passes: the approval's own
// timeout (approval: {timeout, then}), or the agent's human_timeout.
// Other calls of the step go on meanwhile.
func (p *Waits) AwaitApproval(ctx workflow.Context, nodeID, tool string) (Outcome, error) {
	d := p.deadline(ctx, tool)
	t, _ := p.host.Spec().Tool(tool)
	return p.awaitApproval(ctx, nodeID, tool, d, t.Approval.Levels())
}

// deadline is the approval deadline of tool's calls: its own when it has
// one and the run takes the change, else none (human_timeout, then the
// call is refused).
func (p *Waits) deadline(ctx workflow.Context, tool string) config.Deadline {
	t, _ := p.host.Spec().Tool(tool)
	if d := t.Approval.Deadline; d.Bounded() && p.host.Gate(ctx, GateApprovalDeadline) {
		return d
	}
	return config.Deadline{}
}

// awaitApproval is AwaitApproval with the deadline d, asking levels
// groups in turn when d escalates: each wait but the last that times out
// begins the next with a whole timeout.
func (p *Waits) awaitApproval(ctx workflow.Context, nodeID, tool string, d config.Deadline, levels int) (Outcome, error) {
	h, a := p.host, &p.state.approvals
	h.Trace().AwaitingApproval(nodeID, workflow.Now(ctx))
	a.wait(nodeID, tool)
	held := false
	defer func() {
		if !held {
			// A later wait of the call (for its fallback's own approval)
			// has a whole timeout of its own.
			a.end(nodeID)
			h.Forget(nodeID)
		}
	}()
	if err := p.ApprovalPhase(ctx); err != nil {
		return Outcome{}, err
	}
	w := Wait{
		Node: nodeID, Summary: fmt.Sprintf("wait for approval of %s (%s)", nodeID, tool),
		Answered: func() bool { return a.decision(nodeID) != nil },
		Edits:    true, Switches: true, Notify: true, Tool: tool,
	}
	if d.Bounded() {
		w.Timeout, w.PastHalf = d.Timeout.D(), func(ctx workflow.Context) { p.pastHalf(ctx, tool) }
	}
	var end End
	for {
		since := h.Started(ctx, nodeID)
		a.begin(nodeID, since, since.Add(cmp.Or(w.Timeout, h.HumanTimeout())))
		var err error
		if end, _, err = p.Wait(ctx, w); err != nil {
			a.end(nodeID)
			return Outcome{}, err
		}
		if end != TimedOut || !policies.Escalates(d.Decides(), a.level(nodeID), levels) {
			break
		}
		// The next group is asked, with a whole timeout of its own.
		a.escalate(nodeID)
		h.Forget(nodeID)
		h.Count(ctx, MetricApprovalsEscalated, 1, "tool", tool)
	}
	if end == Switching {
		// The decision is still wanted: the call stays listed (and may
		// take a decision until the run continues as new, which carries it).
		held = true
		return Outcome{Held: true}, nil
	}
	earlier := a.takeEarlier(nodeID)
	a.end(nodeID)
	if end == Interrupted {
		if len(earlier) > 0 && h.Gate(ctx, GateInterruptedApprovals) {
			// The people who approved before the edit are on record.
			t, _ := h.Spec().Tool(tool)
			p.recordEarlier(ctx, nodeID, t, earlier)
		}
		return Outcome{Interrupted: true}, nil
	}
	if err := p.ApprovalPhase(ctx); err != nil {
		return Outcome{}, err
	}
	if end == TimedOut {
		return Outcome{TimedOut: true, Deadline: d, Earlier: earlier}, nil
	}
	return Outcome{Decision: a.take(nodeID), Earlier: earlier}, nil
}

// pastHalf: a call of tool waited past half its approval timeout. It is
// counted, and status shows it overdue from now.
func (p *Waits) pastHalf(ctx workflow.Context, tool string) {
	p.host.Count(ctx, MetricApprovalsPastHalf, 1, "tool", tool)
	p.host.ShowDetails(ctx)
}

// ApprovalPhase keeps the phase at awaiting_approval while any call
// waits, running once none does.
func (p *Waits) ApprovalPhase(ctx workflow.Context) error {
	want := signals.PhaseRunning
	if p.state.approvals.waiting() {
		want = signals.PhaseAwaitingApproval
	}
	if p.host.Phase() == want {
		p.host.ShowDetails(ctx) // the calls waiting changed
		return nil
	}
	return p.host.SetPhase(ctx, want)
}
