package edit

import (
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// A fork is a new workflow that starts where another run was at one of its
// nodes, with an edit applied: the source is read whole (query
// signals.QueryRun, also of a closed run), the agent is resolved from the
// worker's config as for any run, what followed the node is dropped, and
// the run resumes from the node as after an edit (workflows/fork.go). The
// source is left as it was, and the fork's writes are its own: its
// idempotency keys carry its own workflow id, and the effect ledger never
// answers one of its writes with one the source made.

// fork answers an edit with fork: true: the fork starts as a workflow of
// its own (a child the run abandons, so it outlives it), and the run
// records the edit, changes nothing else, and goes on.
func (e *Edits) fork(ctx workflow.Context, req signals.EditRequest) (signals.EditResult, error) {
	h := e.host
	self := workflow.GetInfo(ctx)
	edit := req
	edit.NodeID, edit.Fork = "", false
	editID := e.addEditNode(ctx, req.NodeID, req.Audit, nil, nil, nil)
	forkID := fmt.Sprintf("%s-fork-%s", self.WorkflowExecution.ID, editID)
	e.tr.Node(editID).Output = h.JSON(map[string]any{"fork": forkID})
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:        forkID,
		TaskQueue:         self.TaskQueueName,
		ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_ABANDON,
	})
	name, input := h.Fork(self.WorkflowExecution.ID, req.NodeID, h.JSON(edit))
	child := workflow.ExecuteChildWorkflow(cctx, name, input)
	if err := child.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		// Looked up again: the run may have added nodes while the fork
		// started, moving them.
		if n := e.tr.Node(editID); n != nil {
			n.Status, n.Error, n.At = signals.StatusFailed, "the fork did not start: "+h.ErrorText(err), workflow.Now(ctx).UTC()
		}
		return signals.EditResult{}, fmt.Errorf("edit: the fork %s did not start: %v", forkID, h.ErrorText(err))
	}
	return signals.EditResult{NodeID: editID, Edited: req.NodeID, Invalidated: []string{}, Generation: h.Generation(), WorkflowID: forkID}, nil
}
