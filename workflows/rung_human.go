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

// humanRung waits for a person's reply to the loop of escalation escID:
// the reply is noted and the run goes on; no reply within human_timeout
// climbs to the next rung; a run that continues as new meanwhile carries
// the wait (escalation.held).
func (r *runner) humanRung(ctx workflow.Context, escID string, loop *policies.Loop, where, why string) *escalation {
	reply, humanID, timedOut, err := r.awaitHuman(ctx, "the agent is stuck in a loop: "+why, true)
	switch {
	case errors.Is(err, errSwitching):
		return &escalation{held: &carriedRung{Escalation: escID, Loop: *loop, Where: where, human: humanID}}
	case err != nil:
		return &escalation{stopErr: err}
	case timedOut:
		return r.escalate(ctx, loop, where)
	}
	r.noteEscalation(escID, "a person replied: "+reply.Text)
	return &escalation{}
}

// resumeRung, as a generation that continued while a human rung waited
// starts, waits at the same node again (held: expectCarriedWaits).
func (r *runner) resumeRung(ctx workflow.Context, w *waitingResume) *escalation {
	rung := w.Rung
	return r.humanRung(ctx, rung.Escalation, &rung.Loop, rung.Where, "")
}
