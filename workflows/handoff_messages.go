package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// A person's handoff (the handoff update or signal) is taken like an
// edit: it interrupts the run at its next wait (a model request in flight
// is abandoned, calls not yet started do not run, running tools are waited
// for), is carried out, and the run continues as new, as the agent that
// took it or, when none could, as it was.

// pendingHandoff is the person's handoff accepted in this generation:
// what it asks, and the update's answer once the run's life says it was
// answered.
type pendingHandoff struct {
	req signals.HandoffRequest
	// wait: an update's handler waits for the answer (a signal: nobody).
	wait   bool
	result signals.HandoffResult
	err    error
}

// acceptHandoff is where a valid handoff message lands, from the update
// (wait: answered once carried out) or the signal.
func (r *runner) acceptHandoff(ctx workflow.Context, req signals.HandoffRequest, wait bool) (signals.HandoffResult, error) {
	if err := r.handoffWanted(req); err != nil {
		return signals.HandoffResult{}, err
	}
	ph := &pendingHandoff{req: req, wait: wait}
	live(r.life.Interrupt(life.Handoff))
	r.handing = ph
	if !wait {
		return signals.HandoffResult{}, nil
	}
	if err := workflow.Await(ctx, func() bool { return r.life.Answered() }); err != nil {
		return signals.HandoffResult{}, err
	}
	return ph.result, ph.err
}

// applyHandoff carries out the person's handoff the run was interrupted
// for, then continues as new: as the agent that took the run or, when none
// could (the answer says why of each), as the agent it was with.
func (r *runner) applyHandoff(ctx workflow.Context) error {
	ph := r.handing
	summary := ph.req.Note
	if ph.req.Reason != "" {
		summary = joinNonEmpty(". ", ph.req.Note, ph.req.Reason)
	}
	to, res, err := r.handOff(ctx, handoffAsk{Trigger: triggerMessage, To: ph.req.To, Reason: "other", Summary: summary, Audit: ph.req.Audit})
	ph.result = res
	live(r.life.Answer())
	if err != nil {
		ph.err = err
		return err
	}
	if to == "" {
		ph.err = errors.New("handoff: " + r.run.node(res.NodeID).Error + "; the run goes on with " + r.run.Spec.Agent.Name)
	}
	return r.continueAsNew(ctx)
}

// joinNonEmpty joins the parts that are not empty.
func joinNonEmpty(sep string, parts ...string) string {
	out := ""
	for _, p := range parts {
		if p == "" {
			continue
		}
		if out != "" {
			out += sep
		}
		out += p
	}
	return out
}

// handoffSignal takes the handoff signal: refused as before in runs
// recorded before handoffs existed.
func (r *runner) handoffSignal(ctx workflow.Context, req signals.HandoffRequest) error {
	if err := r.handoffWanted(req); err != nil {
		return err
	}
	if !r.run.Spec.Agent.CanHandOff() || versionOf(ctx, versionHandoff, 1) < 1 {
		return notYet(signals.Handoff)
	}
	if err := r.handingOverRefusal(signals.Handoff); err != nil && r.handingOverOn(ctx) {
		return err
	}
	_, err := r.acceptHandoff(ctx, req, false)
	return err
}

// handoffReasonValid checks a handoff reason against the enum.
func handoffReasonValid(reason string) error {
	for _, ok := range policies.HandoffReasons {
		if reason == ok {
			return nil
		}
	}
	return fmt.Errorf("reason %q is not one of %v", reason, policies.HandoffReasons)
}
