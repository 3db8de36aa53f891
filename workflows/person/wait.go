package person

import (
	"cmp"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// Wait is one wait for a person's answer at a trace node: an approval, a
// reply, a budget decision, a conversation's next message. The kinds
// differ in what answers them and what ends them early, not in how they
// wait.
type Wait struct {
	Node     string
	Summary  string      // the timer's summary, shown in the Web UI
	Answered func() bool // the person's answer landed
	// Edits: an edit (or a person's handoff) ends the wait; Switches: the
	// run continuing as new while it waits ends it (held).
	Edits, Switches bool
	// WholeTimeout: the wait has the agent's human_timeout as written,
	// from now (a budget wait recorded before version budget-wait), not
	// the time left of a deadline kept across generations.
	WholeTimeout bool
	// Timeout is the wait's own bound (a conversation's idle_timeout);
	// 0: human_timeout.
	Timeout time.Duration
	// Notify: the run's webhooks are told when the wait begins (unless a
	// generation before began it), passes half its timeout and times out
	// (an approval, a reply); Tool is the call's tool ("" none).
	Notify bool
	Tool   string
	// PastHalf, when set, is called as the wait passes half its timeout
	// in this generation: the wait waits to the half first even when it
	// tells no webhook.
	PastHalf func(ctx workflow.Context)
}

// End is how a wait for a person ended.
type End int

const (
	Answered    End = iota
	TimedOut        // the timeout passed first
	Interrupted     // an edit or a person's handoff came first
	Switching       // the run continues as new and waits again
)

// Wait waits at w.Node until the person answers, the timeout passes, or
// an edit or a switch that w lets end the wait comes first. It answers
// how the wait ended, the timeout it waited for, and the await's error (a
// cancellation). A wait begun in an earlier generation keeps its
// deadline; one already past it ends at once.
func (p *Waits) Wait(ctx workflow.Context, w Wait) (End, time.Duration, error) {
	h := p.host
	timeout, expired := h.Spec().Agent.Policies.HumanTimeout.D(), false
	since, whole, carried := workflow.Now(ctx), timeout, false
	if !w.WholeTimeout {
		carried = h.Carried(w.Node)
		since, whole = h.Started(ctx, w.Node), cmp.Or(w.Timeout, h.HumanTimeout())
		timeout, expired = policies.WaitLeft(whole, workflow.Now(ctx).Sub(since))
	}
	tell := p.teller(ctx, w, since, whole)
	if !carried {
		tell.tell(ctx, config.NotifyWaiting)
	}
	got := w.Answered()
	if !expired {
		var err error
		got, err = p.await(ctx, w, tell, timeout, whole-timeout)
		if err != nil {
			return Answered, timeout, err
		}
	}
	switch {
	case !got:
		tell.tell(ctx, config.NotifyTimedOut)
		return TimedOut, timeout, nil
	case w.Answered():
		return Answered, timeout, nil
	case h.Interrupting(): // an edit outranks a switch that came with it
		return Interrupted, timeout, nil
	}
	return Switching, timeout, nil
}

// await waits timeout for what ends wait w, having waited waited of its
// whole timeout before: false when the timeout passed first. A wait that
// tells of its half waits to the half first, tells, and waits the rest.
func (p *Waits) await(ctx workflow.Context, w Wait, tell *teller, timeout, waited time.Duration) (bool, error) {
	h := p.host
	ends := func() bool {
		return w.Answered() || (w.Edits && h.Interrupting()) || (w.Switches && h.Switching())
	}
	if half, ahead := halfOf(w, tell, timeout+waited, waited); ahead {
		got, err := awaitFor(ctx, half, w.Summary+": half its timeout", ends)
		if err != nil || got {
			return got, err
		}
		tell.tell(ctx, config.NotifyHalfTimeout)
		if w.PastHalf != nil {
			w.PastHalf(ctx)
		}
		timeout -= half
	}
	return awaitFor(ctx, timeout, w.Summary, ends)
}

// awaitFor awaits cond for at most timeout, on a durable timer with
// summary: false when the timeout passed first.
func awaitFor(ctx workflow.Context, timeout time.Duration, summary string, cond func() bool) (bool, error) {
	return workflow.AwaitWithOptions(ctx, workflow.AwaitOptions{Timeout: timeout, TimerOptions: workflow.TimerOptions{Summary: summary}}, cond)
}
