package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// An outage is not a loop. A node whose service is down waits it out: a
// tool's call (pipeline.park, call_stages.go) or a model request whose model and every
// fallback are down (model_outage.go). Both wait the same way: on a
// durable timer until the next probe (policies.NextProbe), in phase
// waiting_outage, shown on the node and in the run's status, for at most
// outage.max_wait since the run began to wait out that service.

// outages are the run's waits for a service that is down.
type outages struct{ r *runner }

func (r *runner) outages() outages { return outages{r} }

// status is what a node waiting out service of, whose breaker is b,
// shows and waits for (ok); when it waits no more because the run waited
// maxWait, what the node's error adds (waited).
func (o outages) status(ctx workflow.Context, node, of string, b policies.Breaker, maxWait time.Duration) (status signals.OutageStatus, waited string, ok bool) {
	now := workflow.Now(ctx)
	since := o.r.run.Outages.Begin(of, now)
	seed := workflow.GetInfo(ctx).WorkflowExecution.ID + "/" + node
	next := policies.NextProbe(b, now, seed)
	if policies.OutageWaited(since, next, maxWait) {
		return status, fmt.Sprintf("; the run waited out this outage for %s, and outage.max_wait (%s) ends before the breaker lets a call through", now.Sub(since).Round(time.Second), maxWait), false
	}
	return signals.OutageStatus{Of: of, Since: since, NextProbe: next.UTC()}, "", true
}

// park shows node waiting: on the node, in the run's status, and in its
// phase (the first node parked).
func (o outages) park(ctx workflow.Context, node string, s signals.OutageStatus) {
	r := o.r
	if n := r.run.node(node); n != nil {
		n.Note = fmt.Sprintf("waiting out an outage of %s since %s; next probe at %s", s.Of, s.Since.Format(time.RFC3339), s.NextProbe.Format(time.RFC3339))
	}
	if r.parked.Park(node, s) && r.run.Phase == signals.PhaseRunning {
		_ = r.setPhase(ctx, signals.PhaseWaitingOutage)
	}
}

// awaitEnd is how a wait for the next probe ended.
type awaitEnd int

const (
	// probe: the timer fired; the node tries again.
	probe awaitEnd = iota
	// edited: an edit came first (the run is interrupted).
	edited
	// cancelled: the run was cancelled.
	cancelledWait
	// carried: the run continues as new while it waits, and the next
	// generation takes the wait up (versionOutageContinue).
	carried
)

// await waits until s.NextProbe on a durable timer. An edit or a
// cancellation of ctx ends it first; so does the run continuing as new
// while it waits, when the run carries outage waits (asked then).
func (o outages) await(ctx workflow.Context, s signals.OutageStatus) awaitEnd {
	r := o.r
	tctx, stop := workflow.WithCancel(ctx)
	timer := workflow.NewTimerWithOptions(tctx, s.NextProbe.Sub(workflow.Now(ctx)), workflow.TimerOptions{Summary: "waiting out an outage of " + s.Of})
	declined := false // the run does not carry outage waits: it waits on through a switch
	for {
		_ = workflow.Await(ctx, func() bool {
			return timer.IsReady() || r.life.Interrupting() || ctx.Err() != nil || (!declined && r.life.Switching())
		})
		switch {
		case timer.IsReady():
			return probe
		case r.life.Interrupting():
			stop()
			return edited
		case ctx.Err() != nil:
			stop()
			return cancelledWait
		case versionOf(ctx, versionOutageContinue, 1) >= 1:
			stop()
			return carried
		}
		declined = true
	}
}

// unpark: node waits no more; the last one back gives the run its
// running phase again.
func (o outages) unpark(ctx workflow.Context, node, of string) {
	r := o.r
	if n := r.run.node(node); n != nil {
		if since, ok := r.parked.Since(node); ok {
			n.Note = fmt.Sprintf("waited out an outage of %s from %s for %s", of, since.Format(time.RFC3339), workflow.Now(ctx).Sub(since).Round(time.Second))
		}
	}
	if r.parked.Unpark(node) && r.run.Phase == signals.PhaseWaitingOutage {
		_ = r.setPhase(ctx, signals.PhaseRunning)
	}
}
