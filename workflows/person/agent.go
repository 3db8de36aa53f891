package person

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// Agent is a run with an agent of kind human: no model is called. The
// run waits in phase awaiting_human for the person: a reply with output
// completes it (the output checked against the output schema when the
// reply arrives: the run completes with output after node), a reply with
// text alone hands it back to the agent that handed it over (the text is
// the person's message), a handoff passes it on. No reply within
// human_timeout stops the run with the report. Without output, err is how
// the run ends.
func (p *Waits) Agent(ctx workflow.Context) (node string, output json.RawMessage, err error) {
	h := p.host
	p.state.agent = true
	name := h.Spec().Agent.Name
	why := fmt.Sprintf("the run is with %s, a person: reply with output to complete it", name)
	if back := p.returnTo(); back != "" {
		why += ", with text alone to hand it back to " + back
	}
	why += ", or hand it on"
	h.TakeHeldHuman()
	got, err := p.awaitReply(ctx, why, false)
	switch {
	case err != nil:
		return got.node, nil, err
	case got.end == Switching:
		return got.node, nil, h.ContinueWaiting(ctx, got.node)
	case got.end == Interrupted:
		return got.node, nil, h.ApplyEdit(ctx)
	case got.end == TimedOut:
		return got.node, nil, h.Stop(ctx, fmt.Sprintf("no reply from %s within human_timeout (%s)", name, h.HumanTimeout()))
	case len(got.reply.Output) > 0:
		return got.node, got.reply.Output, nil
	}
	handed, refused, err := h.HandBack(ctx, p.returnTo(), got.reply, got.node)
	switch {
	case err != nil:
		return got.node, nil, err
	case !handed:
		return got.node, nil, h.Stop(ctx, "the person's reply could not hand the run back: "+refused)
	}
	return got.node, nil, h.ContinueAsNew(ctx)
}

// returnTo is the agent that handed the run to the agent it is with now
// ("" when it started with it).
func (p *Waits) returnTo() string {
	path := p.host.HandoffPath()
	if len(path) < 2 {
		return ""
	}
	return path[len(path)-2]
}

// agentReplyProblem checks a reply to a human agent: output must match
// the output schema; text alone needs an agent to hand the run back to.
func (p *Waits) agentReplyProblem(req signals.ReplyRequest) error {
	if len(req.Output) == 0 {
		if p.returnTo() == "" {
			return fmt.Errorf(`reply: text alone hands the run back to the agent that handed it over, but the run started with %s: give "output" to complete it, or hand it on`, p.host.Spec().Agent.Name)
		}
		return nil
	}
	if len(req.Output) > config.MaxPayloadBytes {
		return errors.New("reply: " + config.OverPayload(`"output" is`, len(req.Output)))
	}
	doc, err := policies.DecodeJSON(req.Output)
	if err != nil {
		return fmt.Errorf(`reply: "output" is not JSON: %v`, err)
	}
	if schema := p.host.OutputSchema(); schema != nil {
		if err := schema.Validate(doc); err != nil {
			return errors.New(`reply: "output" does not match the output schema: ` + config.DescribeViolations(err))
		}
	}
	return nil
}
