package workflows

import (
	"errors"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/workflows/person"
)

// The ladder's human rung waits for a person's reply like any other wait,
// so it continues as new while it waits too: the next generation waits at
// the same human node, for the same loop, and a timeout there climbs on
// from this rung as it would have.

// carriedRung is a human rung's wait carried into the next generation:
// its escalation node, the loop it answers and where (a graph node, ""
// free-form), and in a graph the visit the loop was seen at, whose edge
// is taken once the rung is answered.
type carriedRung struct {
	Escalation string        `json:"escalation"`
	Loop       policies.Loop `json:"loop"`
	Where      string        `json:"where,omitempty"`
	Visit      *resumePoint  `json:"visit,omitempty"`
	human      string        // the human node it waits at (waitingResume.Human)
}

// humanRung is the ladder's human rung for the loop of escalation esc,
// seen at where.
type humanRung struct {
	r     *runner
	esc   string
	loop  *policies.Loop
	where string
}

// heldRung is the human rung a generation that continued as new while
// it waited waits at again (its node: expectCarriedWaits).
func heldRung(r *runner, w *waitingResume) humanRung {
	rung := w.Rung
	return humanRung{r: r, esc: rung.Escalation, loop: &rung.Loop, where: rung.Where}
}

// wait waits for a person's reply to the loop (why says why): the reply
// is noted and the run goes on; no reply within human_timeout climbs to
// the next rung; a run that continues as new meanwhile carries the wait
// (escalation.held).
func (h humanRung) wait(ctx workflow.Context, why string) *escalation {
	r := h.r
	ask := r.run.Spec.Agent.Policies.HumanApproval
	d := replyAsk{r: r, a: ask}.decide(ctx)
	if !d.Ask {
		// No one is asked: the ladder climbs on, as it would on no reply.
		r.noteEscalation(h.esc, d.Note)
		return r.escalate(ctx, h.loop, h.where)
	}
	got, err := r.person().AwaitReply(ctx, person.Ask{Why: withNote("the agent is stuck in a loop: "+why, d.Note), Rung: true, Approval: ask})
	switch {
	case errors.Is(err, errSwitching):
		return &escalation{held: &carriedRung{Escalation: h.esc, Loop: *h.loop, Where: h.where, human: got.Node}}
	case err != nil:
		return &escalation{stopErr: err}
	case got.TimedOut || got.Reply == nil:
		return r.escalate(ctx, h.loop, h.where)
	}
	r.noteEscalation(h.esc, "a person replied: "+got.Reply.Text)
	return &escalation{}
}
