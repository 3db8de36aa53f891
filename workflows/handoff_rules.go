package workflows

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

// handoffByRule checks the agent's rules and, when one fires, hands the
// run over: done says the generation ends (continue-as-new as the agent
// that took the run, or err).
func (r *runner) handoffByRule(ctx workflow.Context) (done bool, err error) {
	when := r.run.Spec.Agent.Policies.HandoffWhen
	if when == nil || !r.handsOver || r.run.RulesSpent {
		return false, nil
	}
	r.run.undecoded = nil
	view := r.handoffView()
	if err := r.stopUndecodable(ctx, r.run.undecoded); err != nil {
		return true, err
	}
	view.Seen = r.run.RulesSeen
	r.run.RulesSeen = len(view.UserWords)
	trigger, ok := policies.HandoffRule(when, view)
	if !ok {
		return false, nil
	}
	to, _, err := r.handOff(ctx, handoffAsk{Trigger: triggerRule, Reason: trigger.Reason, Summary: trigger.Why,
		Suggested: "take the task on from where it stands"})
	if err != nil {
		return true, err
	}
	if to == "" {
		r.run.RulesSpent = true
		return false, nil
	}
	return true, r.continueAsNew(ctx)
}

// handoffView reads the trace since the agent took the run over: failed
// calls in a row, model steps in a row in which no call completed, and the
// user's words (the task, then each person's reply, from the whole run).
func (r *runner) handoffView() policies.HandoffView {
	run := r.run
	v := policies.HandoffView{UserWords: []string{run.Input.Task}}
	since := run.lastHandoff() + 1
	var steps []int
	progress := map[int]bool{}
	for i := range run.Nodes {
		n := &run.Nodes[i]
		if n.Kind == signals.KindHuman && n.Status == signals.StatusCompleted {
			var reply signals.ReplyRequest
			run.readRecorded(n, "the recorded reply of a person", n.Output, &reply)
			v.UserWords = append(v.UserWords, reply.Text)
		}
		if i < since || n.Status == signals.StatusInvalidated {
			continue
		}
		switch {
		case n.Kind == signals.KindRequest:
			steps = append(steps, n.Step)
		case n.Kind != signals.KindCall || n.Tool == FinalOutputTool || n.Tool == HandoffTool:
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
