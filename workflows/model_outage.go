package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// The model provider down. A request whose model and every fallback did
// not answer (policies.ModelDown: unavailable on every attempt, refused
// by the worker's breaker, or timed out) waits the outage out as a tool's
// call does (outage.go): on a durable timer until the model's breaker
// would let a trial through, then asked again from the agent's own model.
// The run asks no person and spends no step while it waits; past
// outage.max_wait (the model's, else the agent's) it stops with a report,
// as a model request that failed did. Every request tells the worker so
// (WaitsOutage), whose breaker's refusal of the run's last model is then
// final at once instead of held in the activity's retries. It needs no
// gate: replay does not compare an activity's input, and a failure that
// comes after this change, in any run, takes the gate as made; a worker
// of an earlier release gets no such flag from its runs, and keeps them
// in the activity's retries as before.

// modelOutageOf is what a run waits out when its models are down, as its
// status and its outages name it.
func (r *runner) modelOutageOf() string { return "model " + r.run.Spec.Model.Name }

// modelOutage says whether request reqID, failed with err and taken by
// no fallback, waits out an outage of the run's models (down), and until
// when (status); when it does not because the run waited max_wait out,
// what the request's error adds (waited).
func (q requests) modelOutage(ctx workflow.Context, reqID string, err error) (status signals.OutageStatus, waited string, down bool) {
	r := q.r
	if !r.model().Down(err) || versionOf(ctx, versionModelOutage, 1) < 1 {
		return status, "", false
	}
	m := r.run.Spec.Model
	b := policies.Breaker{State: policies.BreakerOpen, OpenedAt: workflow.Now(ctx), Cooldown: m.ModelBreaker().Cooldown.D()}
	return r.outages().status(ctx, reqID, r.modelOutageOf(), b, r.run.Spec.Agent.Policies.ModelOutageWait(m))
}

// waitOutModels waits until status.NextProbe, then turns the run back to
// its own model. An edit (errInterrupted), a cancellation, or continuing
// as new while it waits (a flood of signals) that comes first is its
// error.
func (q requests) waitOutModels(ctx workflow.Context, reqID string, status signals.OutageStatus) error {
	r := q.r
	if status.Since.Equal(workflow.Now(ctx)) {
		r.count(ctx, MetricModelOutageWaits, 1, "model", r.run.Spec.Model.Name) // once an outage, however often it probes
	}
	r.outages().park(ctx, reqID, status)
	end := r.outages().await(ctx, status)
	r.outages().unpark(ctx, reqID, status.Of)
	switch end {
	case edited:
		r.finishNode(ctx, reqID, nil, "abandoned: a person edited the run while it waited out an outage of "+status.Of)
		return errInterrupted
	case carried:
		// Signals flooded in while it waited: the next generation asks
		// again, and waits again from the outage's start (Run.Outages).
		r.finishNode(ctx, reqID, nil, "not sent: the run continued as new while it waited out an outage of "+status.Of+"; the next generation asks again")
		return r.waiting().Continue(ctx, stepWaits{})
	case cancelledWait:
		return r.cancelled(ctx, reqID)
	}
	r.model().AfterOutage()
	return nil
}
