package edit

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/model"
	"github.com/unstuck-dev/unstuck/workflows/trace"
	"github.com/unstuck-dev/unstuck/workflows/walk"
)

// ApplyAccepted applies the edit the run was interrupted for, and answers
// it; the run then continues as new from the edited node. Should the edit
// no longer apply (it was checked when it arrived, so this is not
// expected), it is answered with the reason and the run continues as new
// all the same: the step the edit interrupted is not picked up, the next
// request follows.
func (e *Edits) ApplyAccepted(ctx workflow.Context) {
	pe := e.mem.accepted
	pe.result, pe.err = e.Apply(ctx, pe.req, false)
	must(e.life.Answer())
	if pe.err != nil {
		workflow.GetLogger(ctx).Warn("edit not applied", "node", pe.req.NodeID, "error", pe.err.Error())
	}
}

// Apply changes the edited node, invalidates what depended on it
// (policies.PlanEdit), restores the loop escape and counters as they were
// at the node (a conversation's turn too), rebuilds State from the calls
// that stay, and records the edit; the next generation (or, fork, the
// fork's first) resumes from there.
func (e *Edits) Apply(ctx workflow.Context, req signals.EditRequest, fork bool) (signals.EditResult, error) {
	h := e.host
	// Not Wanted: that refuses while an edit is accepted, this one. (No
	// handoff is: one is refused once an edit is.)
	if err := e.applies(req); err != nil {
		return signals.EditResult{}, err
	}
	n := e.tr.Node(req.NodeID)
	rerun := len(req.Args) > 0
	// A fork without an edit (no output, no args) keeps the node as it
	// was, and what followed it runs again (a request's calls too).
	same := len(req.Output) == 0 && !rerun
	edit := policies.Edit{Node: n.ID, Rerun: rerun}
	if n.Kind == signals.KindRequest && !same {
		after, _ := e.editedValue(n, req)
		edit.Unchanged = unchangedCalls(e.tr, n, after)
	}
	plan, err := policies.PlanEdit(e.lineage(), edit)
	if err != nil {
		return signals.EditResult{}, fmt.Errorf("edit: %v", err)
	}
	before, after := e.change(ctx, n, req, same)
	e.tr.Invalidate(plan.Invalidated, workflow.Now(ctx))
	e.RestoreAt(n)
	h.ConversationEdited(ctx, n.ID, fork)
	*e.state = e.RebuiltState()
	// The conversation changed before its end: the next request carries it whole.
	h.SendWhole()
	var args map[string]Args
	if rerun {
		args = map[string]Args{n.ModelCallID: {Audit: req.Audit, Args: req.Args}}
	}
	h.ResumeAt(plan.ResumeCalls, args)
	if plan.ResumeCalls == "" {
		e.tr.Edited(n.ID)
	}
	if h.Graph() {
		e.resumeWalk(n, plan.ResumeCalls != "")
	}
	edited := n.ID
	id := e.addEditNode(ctx, edited, req.Audit, before, after, plan.Invalidated)
	if err := h.SetPhase(ctx, signals.PhaseRunning); err != nil {
		return signals.EditResult{}, err
	}
	return signals.EditResult{NodeID: id, Edited: edited, Invalidated: nonNil(plan.Invalidated), Generation: h.Generation() + 1}, nil
}

// change sets the edited node's new value, and answers the value before
// and after as the edit's record shows them (none for a fork that keeps
// the node as it was).
func (e *Edits) change(ctx workflow.Context, n *trace.Node, req signals.EditRequest, same bool) (before, after json.RawMessage) {
	switch {
	case same:
	case n.Kind == signals.KindTask:
		after, _ = e.editedValue(n, req)
		before, n.Args = n.Args, after
		var t struct {
			Task  string          `json:"task"`
			Input json.RawMessage `json:"input"`
		}
		// after is editedTask's own encoding of {task, input}: it decodes.
		_ = json.Unmarshal(after, &t)
		*e.task, *e.input = t.Task, t.Input
	case n.Kind == signals.KindCall && len(req.Args) > 0:
		before, after = e.host.JSON(map[string]any{"args": n.Args}), e.host.JSON(map[string]any{"args": req.Args})
	case n.Kind == signals.KindCall:
		before = n.Output
		if n.Status == signals.StatusFailed {
			before = e.host.JSON(map[string]any{"error": n.Error})
		}
		after = req.Output
		n.Output, n.Error, n.Status, n.Class, n.At = req.Output, "", signals.StatusCompleted, "", workflow.Now(ctx).UTC()
		if n.Settled == 0 {
			e.tr.Settle(n)
		}
	case n.Kind == signals.KindHuman:
		after, _ = e.editedValue(n, req)
		e.renoteReply(n.Output, after)
		before, n.Output = n.Output, after
	default: // a request
		after, _ = e.editedValue(n, req)
		before, n.Output = n.Output, after
	}
	return before, after
}

// resumeWalk is where a graph's walk picks up after the edited node n:
// with the edge its outcome takes (as after a rollback), or from the
// start; an llm node's step is finished first (calls: its calls the edit
// did not keep run again).
func (e *Edits) resumeWalk(n *trace.Node, calls bool) {
	w := e.at.Walk
	w.ResumeFrom, w.GraphAt = nil, ""
	at := graphPlace(e.tr, n)
	switch {
	case calls:
		w.GraphAt = at
	case at != "":
		e.host.NoResume()
		w.ResumeFrom, w.GraphAt = &walk.Point{Node: at, OK: n.Status == signals.StatusCompleted, Error: n.Error}, at
	default:
		e.host.NoResume()
	}
}

// unchangedCalls are the calls of an edited request that the edit left as
// they were: the same call id, tool and arguments. final_output is always
// settled again (it reads what the others wrote, and has no effect).
func unchangedCalls(t *trace.Trace, req *trace.Node, after json.RawMessage) []string {
	var before, now model.Record
	// Both decode: editedValue read the recorded reply (refusing an edit
	// of one that does not decode), and after is its own encoding.
	_ = json.Unmarshal(req.Output, &before)
	_ = json.Unmarshal(after, &now)
	var same []string
	for _, tc := range now.ToolCalls {
		if tc.Name == signals.FinalOutputTool {
			continue
		}
		for _, old := range before.ToolCalls {
			if old.ID == tc.ID && old.Name == tc.Name && sameArgs(old.Args, tc.Args) {
				if n := ValidCall(t, req.ID, tc.ID); n != nil {
					same = append(same, n.ID)
				}
			}
		}
	}
	return same
}

// sameArgs compares a call's arguments as JSON (the model's text and an
// edit's object of the same arguments are the same call).
func sameArgs(a, b string) bool {
	if a == b {
		return true
	}
	ca, errA := policies.CanonicalJSON(json.RawMessage(a))
	cb, errB := policies.CanonicalJSON(json.RawMessage(b))
	return errA == nil && errB == nil && string(ca) == string(cb)
}
