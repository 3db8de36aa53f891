package handoff

import (
	"fmt"

	"go.temporal.io/sdk/workflow"
)

// While a handoff is carried out (whatever asked for it: the handoff tool,
// the ladder's handoff rung, a rule, a person), the run is going away: it
// continues as new as the agent that takes it. An edit or a handoff taken
// then would never be carried out, and its update would wait for a run
// that waits for it (every handler must finish before continue-as-new):
// both are refused, naming the handoff, and go to the run that follows.

// WhileHandingOver refuses message name while a handoff is carried out.
func (h *Handoffs) WhileHandingOver(name string) error {
	to := h.life.HandingOver()
	if to == "" {
		return nil
	}
	return fmt.Errorf("%s: a handoff to %s is being carried out; send it to the run that follows (generation %d, with the agent that takes the run)",
		name, to, h.host.Generation()+1)
}

// SignalWhileHandingOver refuses signal name while a handoff is carried
// out: runs recorded before took it (an edit or a handoff was then
// dropped with the run, or carried out after a handoff that no agent
// took). The gate is asked only for such a signal.
func (h *Handoffs) SignalWhileHandingOver(ctx workflow.Context, name string) error {
	if err := h.WhileHandingOver(name); err != nil && h.on(ctx, h.gates.HandingOver) {
		return err
	}
	return nil
}
