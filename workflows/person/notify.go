package person

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// Notice is what the run's webhooks are told of a wait for a person.
type Notice struct {
	Event string // config.NotifyWaiting, NotifyHalfTimeout, NotifyTimedOut
	// Node is the call waiting for approval or the human node waiting for
	// a reply; Tool the call's tool ("" for a human node).
	Node, Tool string
	// Since is when the wait began, Deadline when it times out.
	Since, Deadline time.Time
}

// teller tells the run's webhooks of one wait; nil tells no one.
type teller struct {
	host   Host
	notice Notice
}

// teller is the teller of wait w, which began at since and times out
// after whole: nil when w tells no one, or the run has no webhooks (then
// it asks no gate), or it was recorded before the webhooks.
func (p *Waits) teller(ctx workflow.Context, w Wait, since time.Time, whole time.Duration) *teller {
	if !w.Notify || len(p.host.Spec().Notify) == 0 || !p.host.Gate(ctx, GateNotify) {
		return nil
	}
	return &teller{host: p.host, notice: Notice{Node: w.Node, Tool: w.Tool, Since: since, Deadline: since.Add(whole)}}
}

// tell tells the webhooks of event.
func (t *teller) tell(ctx workflow.Context, event string) {
	if t == nil {
		return
	}
	n := t.notice
	n.Event = event
	t.host.Notify(ctx, n)
}

// halfOf is how long from now wait w passes half its timeout, when it is
// still ahead (ahead false once it has passed: the generation that waited
// then told of it). A wait that tells no one (a nil teller) and has no
// PastHalf has no half to wait for.
func halfOf(w Wait, t *teller, whole, waited time.Duration) (left time.Duration, ahead bool) {
	if t == nil && w.PastHalf == nil {
		return 0, false
	}
	return halfLeft(whole, waited)
}

// halfLeft is how long a wait of timeout whole that has waited waited
// still has until half of whole: ahead false once half has passed.
func halfLeft(whole, waited time.Duration) (left time.Duration, ahead bool) {
	left = whole/2 - max(waited, 0)
	return left, left > 0
}
