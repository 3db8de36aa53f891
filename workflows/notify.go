package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/workflows/person"
)

// The run's webhooks (notify:) are told of its waits for a person by the
// Notify activity. The run decides nothing on a notice: it starts the
// activity and goes on waiting, so a webhook that fails or hangs never
// fails or holds up the run; the activity's retries are its own. A run
// that closes waits for the notices still under way (a timed_out notice
// is often the last thing it does): Temporal drops the activity tasks of
// a closed run, so a notice sent as the run ends would never be
// delivered. Each notice's retries are bounded (notifyOptions), so that
// wait is too. A run that continues as new does not wait: the wait goes
// on in the next generation, which does not tell of its start again.

// notifyAttempts and notifyBound bound a notice's retries: a webhook down
// for longer misses it.
const (
	notifyAttempts = 5
	notifyBound    = 2 * time.Minute
)

// notifyOptions: a notice is retried with backoff, a few times; a refusal
// (a 4xx, a webhook the worker does not have) is final.
func notifyOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout:    activities.NotifyTimeout + 5*time.Second,
		ScheduleToCloseTimeout: notifyBound,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        30 * time.Second,
			MaximumAttempts:        notifyAttempts,
			NonRetryableErrorTypes: []string{activities.NotifyRefusedError},
		},
	}
}

// Notify starts a notice to each of the run's webhooks that listens for
// n.Event, and does not wait for it. Its context is disconnected: a wait
// cancelled with its call does not cancel the notice of it.
func (h personHost) Notify(ctx workflow.Context, n person.Notice) {
	r := h.r
	info := workflow.GetInfo(ctx).WorkflowExecution
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	for _, hook := range r.run.Spec.Notify {
		if !hook.Listens(n.Event) {
			continue
		}
		req := activities.NotifyRequest{
			Webhook: hook.Name, Event: n.Event, Run: info.ID, RunID: info.RunID, Agent: r.run.Spec.Agent.Name,
			Node: n.Node, Tool: n.Tool, Since: n.Since, Deadline: n.Deadline,
		}
		actx := workflow.WithActivityOptions(dctx, withSummary(notifyOptions(), "tell "+hook.Name+": "+n.Event+" at "+n.Node))
		r.notices = append(r.notices, workflow.ExecuteActivity(actx, acts.Notify, req))
	}
}

// Carried says whether the wait at node began in a generation before.
func (h personHost) Carried(node string) bool { return h.r.waits.Carried(node) }

// awaitNotices, as the run closes, waits for the notices still under way
// (not when it continues as new). A run that sent none waits for nothing
// and records nothing.
func (r *runner) awaitNotices(ctx workflow.Context, continues bool) {
	if continues || len(r.notices) == 0 {
		return
	}
	_ = workflow.Await(ctx, func() bool {
		for _, f := range r.notices {
			if !f.IsReady() {
				return false
			}
		}
		return true
	})
}
