package edit

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// Accept takes an edit the run can apply, from the update (wait: the
// answer is awaited) or the signal. A call waiting for approval has its
// arguments changed at once; any other edit interrupts the run, which
// applies it (ApplyAccepted) and continues as new.
func (e *Edits) Accept(ctx workflow.Context, req signals.EditRequest, wait bool) (signals.EditResult, error) {
	if err := e.Wanted(req); err != nil {
		return signals.EditResult{}, err
	}
	if req.Fork && !wait {
		// A signal: the fork starts in a coroutine of its own, so the
		// run's other messages are not held up; a failure is in the trace.
		e.host.Go(ctx, "the fork of "+req.NodeID, func(ctx workflow.Context) {
			if _, err := e.fork(ctx, req); err != nil {
				workflow.GetLogger(ctx).Warn("fork not started", "node", req.NodeID, "error", err.Error())
			}
		})
		return signals.EditResult{}, nil
	}
	if req.Fork {
		return e.fork(ctx, req)
	}
	if n := e.tr.Node(req.NodeID); n.Status == signals.StatusAwaitingApproval {
		return e.editWaitingCall(ctx, n, req), nil
	}
	pe := &accepted{req: req, wait: wait}
	must(e.life.Interrupt(life.Edit))
	e.mem.accepted = pe
	if !wait {
		return signals.EditResult{}, nil
	}
	if err := workflow.Await(ctx, func() bool { return e.life.Answered() }); err != nil {
		return signals.EditResult{}, err
	}
	return pe.result, pe.err
}

// Applying is the node the edit accepted edits (one is: the run's life
// says so).
func (e *Edits) Applying() string { return e.mem.accepted.req.NodeID }

// Waits says whether the sender of the edit accepted waits for its answer
// (an update).
func (e *Edits) Waits() bool { return e.mem.accepted.wait }

// NotCarried answers the edit accepted with err: the run did something
// else first, and the edit is not applied.
func (e *Edits) NotCarried(ctx workflow.Context, err error) {
	pe := e.mem.accepted
	pe.err = err
	must(e.life.Answer())
	workflow.GetLogger(ctx).Warn("edit not applied", "node", pe.req.NodeID, "error", pe.err.Error())
}

// editWaitingCall changes the arguments of a call waiting for approval:
// it goes on waiting, and the person who approves it approves the edited
// arguments (the model is told a person changed them: MarkEditedArgs).
func (e *Edits) editWaitingCall(ctx workflow.Context, n *trace.Node, req signals.EditRequest) signals.EditResult {
	before := n.Args
	n.Args = req.Args
	id := n.ID
	if e.mem.argsEdited == nil {
		e.mem.argsEdited = map[string]signals.Audit{}
	}
	e.mem.argsEdited[id] = req.Audit
	rec := e.addEditNode(ctx, id, req.Audit, e.host.JSON(map[string]any{"args": before}), e.host.JSON(map[string]any{"args": req.Args}), nil)
	return signals.EditResult{NodeID: rec, Edited: id, Invalidated: []string{}, Generation: e.host.Generation()}
}

// MarkEditedArgs tells the model that a person changed the arguments of
// call nodeID while it waited for approval, if one did (unless the
// approval itself changed the call, which says so): it goes with tool and
// args.
func (e *Edits) MarkEditedArgs(nodeID, tool string, args json.RawMessage) {
	audit, ok := e.mem.argsEdited[nodeID]
	if !ok {
		return
	}
	delete(e.mem.argsEdited, nodeID)
	if n := e.tr.Node(nodeID); n != nil && len(n.RanAs) == 0 {
		n.RanAs = e.host.JSON(map[string]any{"decision": "edit", "by": audit.By, "reason": audit.Reason, "tool": tool, "args": args})
	}
}
