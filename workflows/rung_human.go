package workflows

import (
	"errors"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
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
	reply, humanID, timedOut, err := r.person().AwaitReply(ctx, "the agent is stuck in a loop: "+why, true)
	switch {
	case errors.Is(err, errSwitching):
		return &escalation{held: &carriedRung{Escalation: h.esc, Loop: *h.loop, Where: h.where, human: humanID}}
	case err != nil:
		return &escalation{stopErr: err}
	case timedOut:
		return r.escalate(ctx, h.loop, h.where)
	}
	r.noteEscalation(h.esc, "a person replied: "+reply.Text)
	return &escalation{}
}
