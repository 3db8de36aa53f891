package workflows

import (
	"encoding/json"
	"fmt"
	"sort"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// editResume is where the first step of a run an edit continued picks up:
// the calls of Request run again (those the edit did not keep), or, with
// no Request, the next model request follows from the frontier.
type editResume struct {
	Request string `json:"request,omitempty"`
	// Args are the arguments a person gave a call (by the model's call
	// id): the call runs again with them.
	Args map[string]editedArgs `json:"args,omitempty"`
	// Waiting: the run continued as new while waiting for people, and
	// waits for the same things (package waiting).
	Waiting *waitingResume `json:"waiting,omitempty"`
}

// editedArgs are a call's new arguments and who gave them.
type editedArgs struct {
	signals.Audit
	Args json.RawMessage `json:"args"`
}

// applyAndContinue applies the edit the run was interrupted for and
// continues as new from the edited node. Should the edit no longer apply
// (it was checked when it arrived, so this is not expected), it is
// answered with the reason and the run continues as new all the same: the
// step the edit interrupted is not picked up, the next request follows.
func (r *runner) applyAndContinue(ctx workflow.Context) error {
	if r.life.Pending() == life.Handoff {
		return r.handoffs().Apply(ctx)
	}
	pe := r.editing
	pe.result, pe.err = r.applyEdit(ctx, pe.req, false)
	live(r.life.Answer())
	if pe.err != nil {
		workflow.GetLogger(ctx).Warn("edit not applied", "node", pe.req.NodeID, "error", pe.err.Error())
	}
	return r.continueAsNew(ctx)
}

// applyEdit changes the edited node, invalidates what depended on it
// (policies.PlanEdit), restores the loop escape and counters as they were
// at the node (a conversation's turn too: chat.Conversation.Edited), rebuilds State
// from the calls that stay, and records the edit; the next generation
// (or, fork, the fork's first) resumes from there.
func (r *runner) applyEdit(ctx workflow.Context, req signals.EditRequest, fork bool) (signals.EditResult, error) {
	run := r.run
	// Not editWanted: that refuses while an edit is accepted, this one.
	// (No handoff is: one is refused once an edit is.)
	if err := r.editApplies(req); err != nil {
		return signals.EditResult{}, err
	}
	n := run.node(req.NodeID)
	rerun := len(req.Args) > 0
	// A fork without an edit (no output, no args) keeps the node as it
	// was, and what followed it runs again (a request's calls too).
	same := len(req.Output) == 0 && !rerun
	edit := policies.Edit{Node: n.ID, Rerun: rerun}
	if n.Kind == signals.KindRequest && !same {
		after, _ := r.editedValue(n, req)
		edit.Unchanged = unchangedCalls(run, n, after)
	}
	plan, err := policies.PlanEdit(r.lineage(), edit)
	if err != nil {
		return signals.EditResult{}, fmt.Errorf("edit: %v", err)
	}
	var before, after json.RawMessage
	switch {
	case same:
	case n.Kind == signals.KindTask:
		after, _ = r.editedValue(n, req)
		before, n.Args = n.Args, after
		var t struct {
			Task  string          `json:"task"`
			Input json.RawMessage `json:"input"`
		}
		// after is editedTask's own encoding of {task, input}: it decodes.
		_ = json.Unmarshal(after, &t)
		run.Input.Task, run.Input.Input = t.Task, t.Input
	case n.Kind == signals.KindCall && rerun:
		before, after = mustJSON(map[string]any{"args": n.Args}), mustJSON(map[string]any{"args": req.Args})
	case n.Kind == signals.KindCall:
		before = n.Output
		if n.Status == signals.StatusFailed {
			before = mustJSON(map[string]any{"error": n.Error})
		}
		after = req.Output
		n.Output, n.Error, n.Status, n.Class, n.At = req.Output, "", signals.StatusCompleted, "", workflow.Now(ctx).UTC()
		if n.Settled == 0 {
			run.Settle(n)
		}
	case n.Kind == signals.KindHuman:
		after, _ = r.editedValue(n, req)
		r.renoteReply(n.Output, after)
		before, n.Output = n.Output, after
	default: // a request
		after, _ = r.editedValue(n, req)
		before, n.Output = n.Output, after
	}
	run.Invalidate(plan.Invalidated, workflow.Now(ctx))
	r.restoreAt(n)
	r.chat().Edited(ctx, n.ID, fork)
	run.State = r.rebuiltState()
	// The conversation changed before its end: the next request carries it whole.
	run.sendWhole()
	run.Resume = &editResume{Request: plan.ResumeCalls}
	if rerun {
		run.Resume.Args = map[string]editedArgs{n.ModelCallID: {Audit: req.Audit, Args: req.Args}}
	}
	if plan.ResumeCalls == "" {
		run.Edited(n.ID)
	}
	if run.Spec.Agent.Graph != nil {
		// The walk picks up after the edited node with the edge its
		// outcome takes (as after a rollback), or from the start; an llm
		// node's step is finished first (its calls the edit did not keep).
		run.ResumeFrom, run.GraphAt = nil, ""
		at := graphPlace(run, n)
		switch {
		case plan.ResumeCalls != "":
			run.GraphAt = at
		case at != "":
			run.Resume = nil
			run.ResumeFrom, run.GraphAt = &resumePoint{Node: at, OK: n.Status == signals.StatusCompleted, Error: n.Error}, at
		default:
			run.Resume = nil
		}
	}
	edited := n.ID
	id := r.addEditNode(ctx, edited, req.Audit, before, after, plan.Invalidated)
	if err := r.setPhase(ctx, signals.PhaseRunning); err != nil {
		return signals.EditResult{}, err
	}
	return signals.EditResult{NodeID: id, Edited: edited, Invalidated: nonNil(plan.Invalidated), Generation: run.Generation + 1}, nil
}

// renoteReply changes the note a human rung's escalation kept of a reply
// (escalation.go) to the edited reply, so the model does not read both.
func (r *runner) renoteReply(before, after json.RawMessage) {
	var was, now signals.ReplyRequest
	// after is editedHumanReply's own encoding: it decodes. before is the
	// reply the edit replaces: one that does not decode noted nothing, so
	// there is no note to change (and the edit drops it).
	_ = json.Unmarshal(before, &was)
	_ = json.Unmarshal(after, &now)
	old := mustJSON("a person replied: " + was.Text)
	for i := range r.run.Nodes {
		n := &r.run.Nodes[i]
		if n.Kind == signals.KindEscalation && string(n.Output) == string(old) {
			n.Output = mustJSON("a person replied: " + now.Text)
		}
	}
}

// unchangedCalls are the calls of an edited request that the edit left as
// they were: the same call id, tool and arguments. final_output is always
// settled again (it reads what the others wrote, and has no effect).
func unchangedCalls(run *Run, req *Node, after json.RawMessage) []string {
	var before, now replyRecord
	// Both decode: editedValue read the recorded reply (refusing an edit
	// of one that does not decode), and after is its own encoding.
	_ = json.Unmarshal(req.Output, &before)
	_ = json.Unmarshal(after, &now)
	var same []string
	for _, tc := range now.ToolCalls {
		if tc.Name == FinalOutputTool {
			continue
		}
		for _, old := range before.ToolCalls {
			if old.ID == tc.ID && old.Name == tc.Name && sameArgs(old.Args, tc.Args) {
				if n := validCall(run, req.ID, tc.ID); n != nil {
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

// checkpoint is what an edit restores of the run as it was when a request
// or a person's reply began.
type checkpoint struct {
	LoopEscape
	GraphWalk
	Step int `json:"step"`
	// Escalations and LoopEscape.Loops only grow, and an edit cuts them
	// back to a checkpoint's: each is a prefix of the run's at any later
	// node, so a checkpoint keeps their lengths, not copies (64 copies of
	// a long run's lists grew the carried run with every loop).
	// Checkpoints made before keep the copies, and are read as before.
	EscalationsLen *int         `json:"escalations_len,omitempty"`
	LoopsLen       *int         `json:"loops_len,omitempty"`
	Escalations    []Escalation `json:"escalations,omitempty"`
	OutputFailures int          `json:"output_failures"`
	LastError      string       `json:"last_error,omitempty"`
}

// maxCheckpoints bounds the checkpoints a run keeps (on its latest request
// and human nodes), and so what they add to the carried run. An edit of an
// older node starts the loop escape afresh (the breakers stay as they are).
const maxCheckpoints = 64

// checkpoint records the loop escape and counters on a node that is
// beginning, and drops those past the bound and those of invalidated
// nodes (never edited, so never restored).
func (r *runner) checkpoint(nodeID string) {
	run := r.run
	if run.node(nodeID) == nil {
		return
	}
	// Counted from the run's first entry, dropped ones included
	// (ladder/record.go), so a checkpoint's length means the same after a drop.
	escalations, loops := len(run.Escalations)+run.EscalationsDropped, len(run.Loops)+run.LoopsDropped
	le := run.LoopEscape
	le.Loops = nil
	run.Checkpoint(nodeID, mustJSON(checkpoint{LoopEscape: le, GraphWalk: run.GraphWalk, Step: run.Step, EscalationsLen: &escalations, LoopsLen: &loops,
		OutputFailures: run.OutputFailures, LastError: run.LastError}), maxCheckpoints)
}

// restoreAt puts back the loop escape and counters as they were at the
// edited node: for the task, a fresh run; for a call, its request's.
func (r *runner) restoreAt(n *Node) {
	run := r.run
	at := n
	if n.Kind == signals.KindCall && n.ModelCallID != "" {
		at = run.node(n.Parents[0]) // a graph node's call has its own
	}
	if n.Kind == signals.KindTask || at == nil {
		run.LoopEscape, run.Step, run.Escalations, run.OutputFailures, run.LastError = LoopEscape{Loops: []signals.Loop{}}, 0, []Escalation{}, 0, ""
		run.EscalationsDropped, run.DroppedRungs = 0, nil
		run.GraphWalk = GraphWalk{Visits: map[string]int{}}
		return
	}
	var cp checkpoint
	if len(at.Checkpoint) == 0 || json.Unmarshal(at.Checkpoint, &cp) != nil {
		// Beyond the checkpoints kept: the loop escape starts afresh, the
		// breakers say what they know of the tools now. The escalations of
		// the steps the edit invalidated (before this) are undone with them
		// (a rollback never invalidates its escalations).
		breakers := run.Breakers
		run.LoopEscape = LoopEscape{Loops: []signals.Loop{}, Breakers: breakers}
		run.Step = at.Step
		kept := []Escalation{}
		for _, e := range run.Escalations {
			if m := run.node(e.At); m == nil || m.Status != signals.StatusInvalidated {
				kept = append(kept, e)
			}
		}
		run.Escalations = kept
		return
	}
	if cp.LoopsLen != nil {
		cp.Loops, cp.LoopsDropped = keptPrefix(run.Loops, run.LoopsDropped, *cp.LoopsLen)
	}
	if cp.EscalationsLen != nil {
		cp.Escalations, run.EscalationsDropped = keptPrefix(run.Escalations, run.EscalationsDropped, *cp.EscalationsLen)
	}
	run.LoopEscape, run.Step, run.OutputFailures, run.LastError = cp.LoopEscape, cp.Step, cp.OutputFailures, cp.LastError
	if run.Spec.Agent.Graph != nil {
		run.GraphWalk = cp.GraphWalk
		if run.Visits == nil {
			run.Visits = map[string]int{}
		}
	}
	run.Escalations = cp.Escalations
	if run.Escalations == nil {
		run.Escalations = []Escalation{}
	}
	if run.Loops == nil {
		run.Loops = []signals.Loop{}
	}
}

// rebuiltState is State as the calls that stay wrote it: each completed
// call's result at its _outputPath, in the order the calls completed.
func (r *runner) rebuiltState() refs.State {
	var base refs.State
	if a := r.run.Archived; a != nil {
		base = a.StateBase
	}
	return r.stateWritten(base, r.run.Nodes)
}

// stateWritten is base (not changed) with the writes of the completed
// calls among nodes applied, in the order the calls completed.
func (r *runner) stateWritten(base refs.State, nodes []Node) refs.State {
	run := r.run
	type write struct {
		order int
		path  refs.Path
		value json.RawMessage
	}
	var writes []write
	for i := range nodes {
		n := &nodes[i]
		if n.Status != signals.StatusCompleted {
			continue
		}
		if n.Kind == signals.KindHuman && n.GraphNode != "" {
			// A graph's human node puts the reply's output in State.human.
			var reply signals.ReplyRequest
			if json.Unmarshal(n.Output, &reply) == nil && len(reply.Output) > 0 {
				writes = append(writes, write{order: n.Settled, path: refs.Path{Root: "state", Steps: []string{"human"}}, value: reply.Output})
			}
			continue
		}
		if n.Kind != signals.KindCall || n.Tool == FinalOutputTool {
			continue
		}
		if p := callWrite(run, n); p != nil {
			writes = append(writes, write{order: n.Settled, path: *p, value: n.Output})
		}
	}
	// Calls completed before the order was kept (Settled 0) came first.
	sort.SliceStable(writes, func(i, j int) bool { return writes[i].order < writes[j].order })
	state := cloneState(base)
	for _, w := range writes {
		if v, err := decodeJSON(w.value); err == nil {
			refs.Write(state, w.path, r.stateValue(v))
		}
	}
	return state
}

// callWrite is the State path a model's call writes (its _outputPath), as
// its request's reply gives it.
func callWrite(run *Run, n *Node) *refs.Path {
	if n.ModelCallID == "" && n.GraphNode != "" && run.Spec.Agent.Graph != nil {
		// A tool node's call writes the node's output_path.
		if g, ok := run.Spec.Agent.Graph.Nodes[n.GraphNode]; ok && g.OutputPath != "" {
			if p, err := refs.ParseOutputPath(g.OutputPath); err == nil {
				return &p
			}
		}
		return nil
	}
	if n.ModelCallID == "" || len(n.Parents) != 1 {
		return nil
	}
	req := run.node(n.Parents[0])
	if req == nil {
		return nil
	}
	var rec replyRecord
	if json.Unmarshal(req.Output, &rec) != nil {
		return nil
	}
	for _, tc := range rec.ToolCalls {
		if tc.ID == n.ModelCallID {
			return callIO(tc).Write
		}
	}
	return nil
}
