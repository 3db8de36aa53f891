package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
)

// resolveAgent reads an agent's resolved config from the worker (the only
// config a run trusts): for a new run, a fork and a handoff's target. It
// runs as a local activity, in the workflow task that asks it: it only
// reads the worker's memory, so a normal activity would cost the run an
// activity task and one more workflow task for nothing. A run recorded
// before (versionLocalResolve) resolves in a normal activity.
func resolveAgent(ctx workflow.Context, agent, summary string) (*config.Resolved, error) {
	var spec config.Resolved
	o := resolveOptions()
	var f workflow.Future
	if versionOf(ctx, versionLocalResolve, 1) >= 1 {
		lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			StartToCloseTimeout: o.StartToCloseTimeout, RetryPolicy: o.RetryPolicy, Summary: summary,
		})
		f = workflow.ExecuteLocalActivity(lctx, acts.ResolveAgent, agent)
	} else {
		f = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, withSummary(o, summary)), acts.ResolveAgent, agent)
	}
	if err := f.Get(ctx, &spec); err != nil {
		return nil, err
	}
	return &spec, nil
}
