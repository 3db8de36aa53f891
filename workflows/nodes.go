package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// addNode appends a node to the trace, giving it an id, the agent and the
// workflow time, and answers a pointer valid until the next addNode.
func (r *runner) addNode(ctx workflow.Context, n Node) *Node {
	n.ID = r.run.newNodeID()
	if n.Agent == "" {
		n.Agent = r.run.Spec.Agent.Name
	}
	if n.Parents == nil {
		n.Parents = []string{}
	}
	n.At = workflow.Now(ctx).UTC()
	r.run.Nodes = append(r.run.Nodes, n)
	return &r.run.Nodes[len(r.run.Nodes)-1]
}

// skipNode settles a node as skipped, saying why: what it stood for did
// not happen, and nothing failed.
func (r *runner) skipNode(ctx workflow.Context, id, why string) {
	if n := r.run.node(id); n != nil {
		n.Status, n.Error, n.NotRun, n.At = signals.StatusSkipped, why, "", workflow.Now(ctx).UTC()
	}
}

// finishNode settles a node as completed (output) or failed (error text).
func (r *runner) finishNode(ctx workflow.Context, id string, output []byte, errText string) {
	n := r.run.node(id)
	if n == nil {
		return
	}
	n.NotRun = "" // notRunNode says why, when the run's life stopped it
	if errText != "" {
		n.Status = signals.StatusFailed
		n.Error = errText
	} else {
		n.Status = signals.StatusCompleted
		n.Output = output
	}
	n.At = workflow.Now(ctx).UTC()
}

// notRunNode settles a node that did not run because of the run's life:
// failed, in the trace's words for why (notRunText, or text when given),
// and with why itself.
func (r *runner) notRunNode(ctx workflow.Context, id string, why life.NotRun, text string) {
	if text == "" {
		text = notRunText(why)
	}
	r.finishNode(ctx, id, nil, text)
	r.run.noteNotRun(id, why)
}

// noteNotRun records why a node just settled did not run.
func (run *Run) noteNotRun(id string, why life.NotRun) {
	if n := run.node(id); n != nil {
		n.NotRun = why
	}
}
