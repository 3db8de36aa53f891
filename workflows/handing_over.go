package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
)

// While a handoff is carried out (whatever asked for it: the handoff tool,
// the ladder's handoff rung, a rule, a person), the run is going away: it
// continues as new as the agent that takes it. An edit or a handoff taken
// then would never be carried out, and its update would wait for a run
// that waits for it (every handler must finish before continue-as-new):
// both are refused, naming the handoff, and go to the run that follows.

// handoffTargetText names the target of a handoff before one is chosen.
func handoffTargetText(to string) string {
	switch to {
	case "":
		return "the best-placed agent"
	case config.HandoffHuman:
		return "a person"
	}
	return to
}

// handingOverRefusal refuses a message while a handoff is carried out.
func (r *runner) handingOverRefusal(name string) error {
	to := r.life.HandingOver()
	if to == "" {
		return nil
	}
	return fmt.Errorf("%s: a handoff to %s is being carried out; send it to the run that follows (generation %d, with the agent that takes the run)",
		name, to, r.run.Generation+1)
}

// handingOverOn says whether a signal that arrives while a handoff is
// carried out is refused: runs recorded before took it (an edit or a
// handoff was then dropped with the run, or carried out after a handoff
// that no agent took). Asked only for such a signal.
func (r *runner) handingOverOn(ctx workflow.Context) bool {
	return versionOf(ctx, versionHandingOver, 1) >= 1
}
