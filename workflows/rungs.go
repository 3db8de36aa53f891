package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// Rungs by class: the loop's error class picks the rung (policies.RungHelps,
// policies.RepairFirst). This file feeds the rules and carries out the
// repair they may call for; escalation.go carries out the ladder's rungs.

// classSituation fills what the rules of rungs by class read: how the
// loop's failing call failed, whether Temporal already retried it,
// whether its fallback is another provider's, what else the model could
// call, whether the run may repair arguments.
func (r *runner) classSituation(s *policies.LoopSituation, loop *policies.Loop, calls []policies.LoopCall) {
	_, s.Class = policies.LoopFailure(calls)
	if s.Class == "" {
		s.Class = policies.Class(loop.Class) // a no-progress loop names its class
	}
	if t, ok := r.run.Spec.Tool(s.LoopTool); ok {
		s.Retried = policies.RetriedByTemporal(s.Class, policies.Retry(t.Retry, policies.DefaultToolRetry).MaxAttempts)
		if fb, ok := r.run.Spec.Tool(t.Fallback); ok {
			s.OtherProvider = policies.OtherProvider(t.Provider, fb.Provider)
		}
	}
	s.OtherTools = policies.OtherTools(r.run.Spec.Agent.Tools, calls)
	s.CanRepair = !s.InGraph && r.run.Spec.Agent.Policies.Repair.MaxAttempts > 0
}

// chooseRung climbs the ladder by the rules the run follows: those of
// rungs by class for runs that reach a loop where they choose otherwise
// than the rules before them (the version is asked only then, so a run
// whose choices do not change records no marker), else the rules before.
func (r *runner) chooseRung(ctx workflow.Context, s policies.LoopSituation) string {
	l := r.ladder()
	before, after := *l, *l
	s.ByClass = false
	old := policies.ChooseRung(&before, s)
	s.ByClass = true
	now := policies.ChooseRung(&after, s)
	differ := old != now || before.Next != after.Next || before.Repaired != after.Repaired
	if differ && versionOf(ctx, versionRungsByClass, 1) >= 1 {
		*l = after
		return now
	}
	*l = before
	return old
}

// repairLoop answers a loop of calls the tool refused as invalid
// arguments: the failing call's arguments are repaired (the refusal's
// message by rule, else one focused model request, as after any refusal,
// with the escalation's own attempts), the refused calls are blocked and
// the model is given the repaired call. When no repair is found the
// ladder is climbed at once.
func (r *runner) repairLoop(ctx workflow.Context, escID string, loop *policies.Loop, where string) *escalation {
	var failed *Node
	for _, n := range r.loopCalls(loop) {
		if n.Status == signals.StatusFailed {
			failed = n
			break
		}
	}
	if failed == nil {
		r.noteEscalation(escID, "no refused call to repair")
		return r.escalate(ctx, loop, where)
	}
	name, args, refusal := failed.askedTool(), failed.Args, failed.Error
	tool, ok := r.run.Spec.Tool(name)
	if !ok {
		r.noteEscalation(escID, "no refused call to repair: "+unknownTool(name, toolNames(r.run.Spec)))
		return r.escalate(ctx, loop, where)
	}
	fixed, ok := r.repairAfter(ctx, escID, tool, args, refusal)
	if !ok || policies.BlockKey(name, fixed, r.volatile(name)) == policies.BlockKey(name, args, r.volatile(name)) {
		r.noteEscalation(escID, fmt.Sprintf("no repair found for %s(%s): %s", name, shortText(string(args), 120), refusal))
		return r.escalate(ctx, loop, where)
	}
	blocked := r.blockLoopCalls(loop)
	r.noteEscalation(escID, fmt.Sprintf("You keep making calls the tool refuses as invalid arguments (%s); those exact calls are now blocked. The last refusal was: %s. Repaired arguments for %s: %s. Call it with them, or change them.",
		strings.Join(blocked, "; "), shortText(refusal, 300), name, fixed))
	return &escalation{}
}
