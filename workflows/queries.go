package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
)

// registerQueries installs the trace, status and (internal) model context
// queries; they read the run and change nothing.
func (r *runner) registerQueries(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, signals.QueryTrace, func() (signals.Trace, error) {
		return r.trace(), nil
	}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, signals.QueryStatus, func() (signals.Status, error) {
		return r.status(), nil
	}); err != nil {
		return err
	}
	return workflow.SetQueryHandler(ctx, signals.QueryModelContext, func() (activities.ModelContext, error) {
		return activities.ModelContext{Messages: buildConversation(r.run), Tools: toolDefs(r.run)}, nil
	})
}

func (r *runner) trace() signals.Trace {
	nodes := make([]signals.Node, len(r.run.Nodes))
	for i, n := range r.run.Nodes {
		nodes[i] = n.Node
	}
	return signals.Trace{Generation: r.run.Generation, Nodes: nodes}
}

func (r *runner) status() signals.Status {
	return signals.Status{
		Agent:            r.run.Spec.Agent.Name,
		Phase:            r.run.Phase,
		Step:             r.run.Step,
		Generation:       r.run.Generation,
		PendingApprovals: r.pendingApprovals(),
		Loops:            r.run.Loops,
		Breakers:         r.breakerStates(),
		HandoffPath:      r.run.HandoffPath,
		LastError:        r.run.LastError,
	}
}

// breakerStates are the breakers of the tools called so far.
func (r *runner) breakerStates() map[string]string {
	out := map[string]string{}
	for name, b := range r.run.Breakers { //workflowcheck:ignore building a map: order does not matter
		out[name] = b.State
	}
	return out
}
