package workflows

import (
	"cmp"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
)

// personWait is one wait for a person's answer at a trace node: an
// approval, a reply, a budget decision. The kinds differ in what answers
// them and what ends them early, not in how they wait.
type personWait struct {
	node     string
	summary  string      // the timer's summary, shown in the Web UI
	answered func() bool // the person's answer landed
	// edits: an edit (or a person's handoff) ends the wait; switches: the
	// run continuing as new while it waits ends it (held).
	edits, switches bool
	// wholeTimeout: the wait has the agent's human_timeout as written,
	// from now (a budget wait recorded before version budget-wait), not
	// the time left of a deadline kept across generations.
	wholeTimeout bool
	// timeout is the wait's own bound (a conversation's idle_timeout);
	// 0: human_timeout.
	timeout time.Duration
}

// waitEnd is how a wait for a person ended.
type waitEnd int

const (
	waitAnswered    waitEnd = iota
	waitTimedOut            // the timeout passed first
	waitInterrupted         // an edit or a person's handoff came first
	waitSwitching           // the run continues as new and waits again
)

// waitForPerson waits at w.node until the person answers, the timeout
// passes, or an edit or a switch that w lets end the wait comes first.
// It answers how the wait ended, the timeout it waited for, and the
// await's error (a cancellation). A wait begun in an earlier generation
// keeps its deadline; one already past it ends at once.
func (r *runner) waitForPerson(ctx workflow.Context, w personWait) (waitEnd, time.Duration, error) {
	timeout, expired := r.run.Spec.Agent.Policies.HumanTimeout.D(), false
	if !w.wholeTimeout {
		waited := workflow.Now(ctx).Sub(r.waits.Started(ctx, w.node))
		timeout, expired = policies.WaitLeft(cmp.Or(w.timeout, humanTimeout(r.run.Spec)), waited)
	}
	got := w.answered()
	if !expired {
		var err error
		got, err = workflow.AwaitWithOptions(ctx, workflow.AwaitOptions{Timeout: timeout, TimerOptions: workflow.TimerOptions{Summary: w.summary}}, func() bool {
			return w.answered() || (w.edits && r.life.Interrupting()) || (w.switches && r.life.Switching())
		})
		if err != nil {
			return waitAnswered, timeout, err
		}
	}
	switch {
	case !got:
		return waitTimedOut, timeout, nil
	case w.answered():
		return waitAnswered, timeout, nil
	case r.life.Interrupting(): // an edit outranks a switch that came with it
		return waitInterrupted, timeout, nil
	}
	return waitSwitching, timeout, nil
}
