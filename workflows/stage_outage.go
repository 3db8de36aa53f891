package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// An outage is not a loop. A call whose tool is down (every breaker on
// its way open, or the worker's breaker refusing it, or a transient
// failure that leaves the tool's breaker open) parks: it waits on a
// durable timer until the breaker lets a trial through (policies.NextProbe,
// spread so runs do not probe at once), in phase waiting_outage, and is
// routed again. It feeds no loop event and climbs no rung while it waits;
// past outage.max_wait in all it fails as it did before, and the ladder
// climbs. An edit or a cancellation ends the wait as it ends any other.

// refused settles a call every breaker on its way refused: it waits the
// outage out, or fails as circuit_open.
func (p *pipeline) refused(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, refusal string) {
	status, waited, ok := p.outageWait(ctx, c, tool, *p.r.escape().Breaker(tool.Name))
	if ok {
		p.park(ctx, c, status, func() { p.route(ctx, c, tool, args) })
		return
	}
	p.fail(ctx, c, refusal+waited, policies.CircuitOpen)
}

// parkAfter routes again a call whose tool activity failed in a way that
// says the tool is down: its breaker open once the failure is counted (or
// the worker's refusing it), so a fallback serves it or it parks. It
// answers false, counting nothing, for any other failure: the call
// settles as it did.
func (p *pipeline) parkAfter(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, err error) bool {
	class := failureClass(err)
	workerRefused := class == activities.CircuitOpenError
	if cancelled(ctx, err) || !policies.OutageParks(class, workerRefused, tool.Effect == config.EffectWrite) {
		return false
	}
	if workerRefused && !workerBreakerOn(ctx) {
		return false
	}
	// The breaker as it is once the failure is counted (the worker's
	// refusal opens it): still closed, the model hears of the failure.
	b := *p.r.escape().Breaker(tool.Name)
	if workerRefused {
		b.Trip(workflow.Now(ctx))
	} else {
		b.RecordError(workflow.Now(ctx), class)
	}
	if b.State == policies.BreakerClosed {
		return false
	}
	if _, _, ok := p.outageWait(ctx, c, tool, b); !ok {
		return false // settled as the failure it is
	}
	p.chargeFailure(ctx, tool.Name, class)
	p.r.run.LastError = errorText(err)
	// Routed again at once: a fallback whose breaker is closed serves it
	// now; with none, every breaker on the way refuses and it parks.
	p.route(ctx, c, c.routed, args)
	return true
}

// outageWait says whether call c of tool, whose breaker is b, waits the
// outage out (ok), and until when (status); when it does not because the
// run waited outage.max_wait, what the call's error adds (waited).
func (p *pipeline) outageWait(ctx workflow.Context, c *stepCall, tool config.Tool, b policies.Breaker) (status signals.OutageStatus, waited string, ok bool) {
	if versionOf(ctx, versionOutageWait, 1) < 1 {
		return status, "", false
	}
	return p.r.outages().status(ctx, c.nodeID, tool.Name, b, p.r.run.Spec.Agent.Policies.OutageWait(tool))
}

// park waits the outage out until status.NextProbe, in a coroutine of
// its own so the step's other calls go on, then calls again (or settles
// the call when an edit or a cancellation came first).
func (p *pipeline) park(ctx workflow.Context, c *stepCall, status signals.OutageStatus, again func()) {
	r := p.r
	if !c.waited {
		c.waited = true
		r.count(ctx, MetricOutageWaits, 1, "tool", status.Of)
	}
	r.outages().park(ctx, c.nodeID, status)
	var end awaitEnd
	p.async(ctx, func(g workflow.Context) {
		end = r.outages().await(g, status)
	}, func() {
		if end != carried {
			r.outages().unpark(ctx, c.nodeID, c.routed.Name)
		}
		switch end {
		case edited:
			p.failNotRun(ctx, c, r.life.Stops())
		case cancelledWait:
			p.fail(ctx, c, "not run: the run was cancelled while it waited out an outage of "+status.Of, policies.Canceled)
		case carried:
			// Left pending and parked, so the switch carries it: the next
			// generation routes it again, and it waits on from the
			// outage's start (Run.Outages).
			if n := r.run.node(c.nodeID); n != nil {
				n.Status = signals.StatusPending
			}
		default:
			again()
		}
	})
}
