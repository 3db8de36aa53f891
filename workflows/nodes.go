package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/workflows/life"
)

// addNode appends a node to the trace (trace.Trace.Add), by the agent
// now with the run unless it names another, at the workflow's time.
func (r *runner) addNode(ctx workflow.Context, n Node) *Node {
	return r.run.Trace.Add(n, r.run.Spec.Agent.Name, workflow.Now(ctx))
}

// skipNode settles a node as skipped, saying why.
func (r *runner) skipNode(ctx workflow.Context, id, why string) {
	r.run.Skip(id, why, workflow.Now(ctx))
}

// finishNode settles a node as completed (output) or failed (error text).
func (r *runner) finishNode(ctx workflow.Context, id string, output []byte, errText string) {
	r.run.Finish(id, output, errText, workflow.Now(ctx))
}

// notRunNode settles a node that did not run because of the run's life:
// failed, in the trace's words for why (notRunText, or text when given),
// and with why itself.
func (r *runner) notRunNode(ctx workflow.Context, id string, why life.NotRun, text string) {
	if text == "" {
		text = notRunText(why)
	}
	r.finishNode(ctx, id, nil, text)
	r.run.NotRun(id, why)
}

// noteNotRun records why a node just settled did not run.
func (run *Run) noteNotRun(id string, why life.NotRun) { run.Trace.NotRun(id, why) }
