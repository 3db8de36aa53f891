package handoff

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// The rules of policies.handoff_when (policies.HandoffRule) are checked
// before each model step of a free-form run. A rule that fires hands the
// run over as any handoff does; when no agent can take it, the rules are
// spent for the agent (the run goes on, and its loop escape still
// watches it) instead of firing again at every step.

// ByRule checks the agent's rules and, when one fires, hands the run
// over: done says the generation ends (continue-as-new as the agent that
// took the run, or err).
func (h *Handoffs) ByRule(ctx workflow.Context) (done bool, err error) {
	when := h.host.Spec().Agent.Policies.HandoffWhen
	if when == nil || !h.mem.on || *h.rulesSpent {
		return false, nil
	}
	var view policies.HandoffView
	if err := h.host.Decoded(ctx, func() { view = h.view() }); err != nil {
		return true, err
	}
	view.Seen = *h.rulesSeen
	*h.rulesSeen = len(view.UserWords)
	trigger, ok := policies.HandoffRule(when, view)
	if !ok {
		return false, nil
	}
	to, _, err := h.HandOff(ctx, Ask{Trigger: TriggerRule, Reason: trigger.Reason, Summary: trigger.Why,
		Suggested: "take the task on from where it stands"})
	if err != nil {
		return true, err
	}
	if to == "" {
		*h.rulesSpent = true
		return false, nil
	}
	return true, h.host.ContinueAsNew(ctx)
}

// view reads the trace since the agent took the run over: failed calls
// in a row, model steps in a row in which no call completed, and the
// user's words (the task, then each person's reply, from the whole run).
func (h *Handoffs) view() policies.HandoffView {
	t := h.trace
	v := policies.HandoffView{UserWords: []string{h.host.Task()}}
	since := Last(t) + 1
	var steps []int
	progress := map[int]bool{}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.Kind == signals.KindHuman && n.Status == signals.StatusCompleted {
			var reply signals.ReplyRequest
			h.host.Read(n, "the recorded reply of a person", n.Output, &reply)
			v.UserWords = append(v.UserWords, reply.Text)
		}
		if i < since || n.Status == signals.StatusInvalidated {
			continue
		}
		switch {
		case n.Kind == signals.KindRequest:
			steps = append(steps, n.Step)
		case n.Kind != signals.KindCall || n.Tool == signals.FinalOutputTool || n.Tool == signals.HandoffTool:
		case n.Status == signals.StatusCompleted:
			v.FailuresInARow = 0
			progress[n.Step] = true
		case n.Status == signals.StatusFailed:
			v.FailuresInARow++
		}
	}
	for i := len(steps) - 1; i >= 0 && !progress[steps[i]]; i-- {
		v.StepsWithoutProgress++
	}
	return v
}
