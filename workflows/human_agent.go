package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/handoff"
)

// humanAgent is a run with an agent of kind human: no model is called. The
// run waits in phase awaiting_human for the person: a reply with output
// completes it (the output checked against the output schema when the
// reply arrives), a reply with text alone hands it back to the agent that
// handed it over (the text is the person's message), a handoff passes it
// on. No reply within human_timeout stops the run with the report.
func (r *runner) humanAgent(ctx workflow.Context) (*AgentResult, error) {
	r.personAgent = true
	name := r.run.Spec.Agent.Name
	why := fmt.Sprintf("the run is with %s, a person: reply with output to complete it", name)
	if back := r.returnTo(); back != "" {
		why += ", with text alone to hand it back to " + back
	}
	why += ", or hand it on"
	r.waiting().TakeHeldHuman()
	reply, nodeID, timedOut, err := r.awaitHuman(ctx, why, false)
	switch {
	case errors.Is(err, errSwitching):
		return nil, r.waiting().Continue(ctx, stepWaits{human: nodeID})
	case errors.Is(err, errInterrupted):
		return nil, r.applyAndContinue(ctx)
	case err != nil:
		return nil, err
	case timedOut:
		return nil, r.stop(ctx, fmt.Sprintf("no reply from %s within human_timeout (%s)", name, humanTimeout(r.run.Spec)))
	case len(reply.Output) > 0:
		return r.outputs().complete(ctx, nodeID, reply.Output)
	}
	to, res, err := r.handoffs().HandOff(ctx, handoff.Ask{
		Trigger: handoff.TriggerReturn, To: r.returnTo(), Reason: "other", Summary: reply.Text, Audit: reply.Audit, Parents: []string{nodeID},
	})
	if err != nil {
		return nil, err
	}
	if to == "" {
		return nil, r.stop(ctx, "the person's reply could not hand the run back: "+r.run.node(res.NodeID).Error)
	}
	return nil, r.continueAsNew(ctx)
}

// returnTo is the agent that handed the run to the agent it is with now
// ("" when it started with it).
func (r *runner) returnTo() string {
	path := r.run.HandoffPath
	if len(path) < 2 {
		return ""
	}
	return path[len(path)-2]
}

// personReplyProblem checks a reply to a human agent: output must match
// the output schema; text alone needs an agent to hand the run back to.
func (r *runner) personReplyProblem(req signals.ReplyRequest) error {
	if len(req.Output) == 0 {
		if r.returnTo() == "" {
			return fmt.Errorf(`reply: text alone hands the run back to the agent that handed it over, but the run started with %s: give "output" to complete it, or hand it on`, r.run.Spec.Agent.Name)
		}
		return nil
	}
	if len(req.Output) > config.MaxPayloadBytes {
		return errors.New("reply: " + overPayload(`"output" is`, len(req.Output)))
	}
	doc, err := decodeJSON(req.Output)
	if err != nil {
		return fmt.Errorf(`reply: "output" is not JSON: %v`, err)
	}
	if r.outputSchema != nil {
		if err := r.outputSchema.Validate(doc); err != nil {
			return errors.New(`reply: "output" does not match the output schema: ` + config.DescribeViolations(err))
		}
	}
	return nil
}
