package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
)

// Rungs by class: the loop's error class picks the rung (policies.RungHelps,
// policies.RepairFirst; package ladder asks them). This file carries out
// the repair they may call for; escalation.go carries out the ladder's
// other rungs.

// repairLoop answers a loop of calls the tool refused as invalid
// arguments: the failing call's arguments are repaired (the refusal's
// message by rule, else one focused model request, as after any refusal,
// with the escalation's own attempts), the refused calls are blocked and
// the model is given the repaired call. When no repair is found the
// ladder is climbed at once.
func (r *runner) repairLoop(ctx workflow.Context, escID string, loop *policies.Loop, where string) *escalation {
	var failed *Node
	for _, c := range r.escape().LoopCalls(loop) {
		if c.Failed {
			failed = r.run.node(c.ID)
			break
		}
	}
	if failed == nil {
		r.noteEscalation(escID, "no refused call to repair")
		return r.escalate(ctx, loop, where)
	}
	name, args, refusal := failed.AskedTool(), failed.Args, failed.Error
	tool, ok := r.run.Spec.Tool(name)
	if !ok {
		r.noteEscalation(escID, "no refused call to repair: "+unknownTool(name, toolNames(r.run.Spec)))
		return r.escalate(ctx, loop, where)
	}
	fixed, ok := r.mend().After(ctx, escID, tool, args, refusal)
	if !ok || policies.BlockKey(name, fixed, r.volatile(name)) == policies.BlockKey(name, args, r.volatile(name)) {
		r.noteEscalation(escID, fmt.Sprintf("no repair found for %s(%s): %s", name, shortText(string(args), 120), refusal))
		return r.escalate(ctx, loop, where)
	}
	blocked := describeCalls(r.escape().Block(loop))
	r.noteEscalation(escID, fmt.Sprintf("You keep making calls the tool refuses as invalid arguments (%s); those exact calls are now blocked. The last refusal was: %s. Repaired arguments for %s: %s. Call it with them, or change them.",
		strings.Join(blocked, "; "), shortText(refusal, 300), name, fixed))
	return &escalation{}
}
