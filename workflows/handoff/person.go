package handoff

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// A person's handoff (the handoff update or signal) is taken like an
// edit: it interrupts the run at its next wait (a model request in flight
// is abandoned, calls not yet started do not run, running tools are waited
// for), is carried out, and the run continues as new, as the agent that
// took it or, when none could, as it was.

// pending is the person's handoff accepted in this generation: what it
// asks, and the update's answer once the run's life says it was
// answered.
type pending struct {
	req signals.HandoffRequest
	// wait: an update's handler waits for the answer (a signal: nobody).
	wait   bool
	result signals.HandoffResult
	err    error
}

// Wanted says whether a person's handoff can be taken now.
func (h *Handoffs) Wanted(req signals.HandoffRequest) error {
	spec := h.host.Spec()
	switch {
	case startedBefore(spec):
		return fmt.Errorf("handoff: this run was started before handoffs existed (by an earlier version of unstuck), so it cannot be handed over; "+
			"it goes on with agent %s: start a new run to hand the task over", spec.Agent.Name)
	case h.life.Accepted() == life.Handoff:
		return fmt.Errorf("handoff: a handoff is already under way; the run goes on in generation %d: send it again then", h.host.Generation()+1)
	case h.life.Accepted() == life.Edit:
		return fmt.Errorf("handoff: an edit of %s is being applied; send the handoff again in a moment", h.host.Editing())
	case h.life.Closing():
		return fmt.Errorf("handoff: the run is closing (it finishes, or continues as new into generation %d): send it again in a moment", h.host.Generation()+1)
	}
	return refusedTarget(spec, req.To)
}

// Accept is where a valid handoff message lands, from the update (wait:
// answered once carried out) or the signal.
func (h *Handoffs) Accept(ctx workflow.Context, req signals.HandoffRequest, wait bool) (signals.HandoffResult, error) {
	if err := h.Wanted(req); err != nil {
		return signals.HandoffResult{}, err
	}
	p := &pending{req: req, wait: wait}
	live(h.life.Interrupt(life.Handoff))
	h.mem.person = p
	if !wait {
		return signals.HandoffResult{}, nil
	}
	if err := workflow.Await(ctx, func() bool { return h.life.Answered() }); err != nil {
		return signals.HandoffResult{}, err
	}
	return p.result, p.err
}

// Apply carries out the person's handoff the run was interrupted for,
// then continues as new: as the agent that took the run or, when none
// could (the answer says why of each), as the agent it was with.
func (h *Handoffs) Apply(ctx workflow.Context) error {
	p := h.mem.person
	summary := p.req.Note
	if p.req.Reason != "" {
		summary = joinNonEmpty(". ", p.req.Note, p.req.Reason)
	}
	to, res, err := h.HandOff(ctx, Ask{Trigger: TriggerMessage, To: p.req.To, Reason: "other", Summary: summary, Audit: p.req.Audit})
	p.result = res
	live(h.life.Answer())
	if err != nil {
		p.err = err
		return err
	}
	if to == "" {
		p.err = errors.New("handoff: " + h.trace.Node(res.NodeID).Error + "; the run goes on with " + h.host.Spec().Agent.Name)
	}
	return h.host.ContinueAsNew(ctx)
}

// Signal takes the handoff signal: refused as before in runs recorded
// before handoffs existed.
func (h *Handoffs) Signal(ctx workflow.Context, req signals.HandoffRequest) error {
	if err := h.Wanted(req); err != nil {
		return err
	}
	if !h.host.Spec().Agent.CanHandOff() || !h.on(ctx, h.gates.Handoff) {
		return h.host.Unavailable(signals.Handoff)
	}
	if err := h.SignalWhileHandingOver(ctx, signals.Handoff); err != nil {
		return err
	}
	_, err := h.Accept(ctx, req, false)
	return err
}

// Waits says whether the person's handoff accepted waits for its answer
// (an update's handler does).
func (h *Handoffs) Waits() bool { return h.mem.person != nil && h.mem.person.wait }

// NotCarried answers the person's handoff that waits, and was not carried
// out: err says why.
func (h *Handoffs) NotCarried(ctx workflow.Context, err error) {
	p := h.mem.person
	p.err = err
	live(h.life.Answer())
	workflow.GetLogger(ctx).Warn("handoff not carried out", "to", p.req.To, "error", p.err.Error())
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
