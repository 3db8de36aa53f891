package person

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

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
	// Earlier are the approvals short of approvers: N that came before the
	// decision (or the timeout), each to be recorded naming its person.
	Earlier []*signals.ApproveRequest
}

// AwaitApproval holds call nodeID (status awaiting_approval, listed in
// status.pending_approvals, phase awaiting_approval) until a person's
// approve message settles it or the agent's human_timeout passes. Other
// calls of the step go on meanwhile.
func (p *Waits) AwaitApproval(ctx workflow.Context, nodeID, tool string) (Outcome, error) {
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
	end, _, err := p.Wait(ctx, Wait{
		Node: nodeID, Summary: fmt.Sprintf("wait for approval of %s (%s)", nodeID, tool),
		Answered: func() bool { return a.decision(nodeID) != nil },
		Edits:    true, Switches: true, Notify: true, Tool: tool,
	})
	if err != nil {
		a.end(nodeID)
		return Outcome{}, err
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
		return Outcome{Interrupted: true}, nil
	}
	if err := p.ApprovalPhase(ctx); err != nil {
		return Outcome{}, err
	}
	if end == TimedOut {
		return Outcome{TimedOut: true, Earlier: earlier}, nil
	}
	return Outcome{Decision: a.take(nodeID), Earlier: earlier}, nil
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
