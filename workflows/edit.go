package workflows

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// The edit message (docs/contract.md "edit"): a person replaces a node's output
// (the task, a model request's thought and calls, a call's result, a
// person's reply) or a call's arguments. What depended on the node is
// invalidated and the run continues as new from it (edit_apply.go), where
// the first step picks up from the edited node (edit_resume.go). A call
// still waiting for approval has its arguments changed in place.

// editWanted says whether an edit can apply now, naming what is wrong.
// The update's validator and the signal both ask it, and nothing it reads
// changes the run.
func (r *runner) editWanted(req signals.EditRequest) error {
	run := r.run
	switch r.life.Accepted() {
	case life.Edit:
		return fmt.Errorf("edit: an edit of %s is being applied; the run goes on in generation %d: send this edit again then, against the trace it shows",
			r.editing.req.NodeID, run.Generation+1)
	case life.Handoff:
		return fmt.Errorf("edit: the run is being handed over; it goes on in generation %d: send the edit again then, against the trace it shows", run.Generation+1)
	}
	return r.editApplies(req)
}

// editApplies says whether an edit applies to the run as it is, whatever
// was accepted before it (the edit being applied asks it too).
func (r *runner) editApplies(req signals.EditRequest) error {
	run := r.run
	if r.life.Closing() {
		return fmt.Errorf("edit: the run is closing (it finishes, or continues as new into generation %d): send the edit again in a moment, or fork it", run.Generation+1)
	}
	if run.isArchived(req.NodeID) {
		return archivedEdit(run, req.NodeID)
	}
	n := run.node(req.NodeID)
	if n == nil {
		return fmt.Errorf("edit: %q is not a node of this run (the trace query lists them)", req.NodeID)
	}
	if n.Kind == signals.KindTask && run.Archived != nil {
		return archivedEdit(run, req.NodeID)
	}
	if n.Kind == signals.KindTask && isMessage(n) {
		return fmt.Errorf("edit: %s is a conversation's message, which cannot be edited yet: edit the output or a call of the turn it started, or send the next message", n.ID)
	}
	if n.Kind == signals.KindHuman && n.Status == signals.StatusSkipped {
		return fmt.Errorf("edit: %s is the record of an ignored message, which cannot be edited", n.ID)
	}
	if h := run.lastHandoff(); h >= 0 && run.nodeIndex(n.ID) <= h {
		return fmt.Errorf("edit: %s came before the run was handed to %s at %s: edit a node after the handoff (what came before belongs to the agent that handed the run over)",
			n.ID, run.Spec.Agent.Name, run.Nodes[h].ID)
	}
	if n.Status == signals.StatusInvalidated {
		return fmt.Errorf("edit: %s was invalidated by an earlier edit or a rollback: edit a node that is still valid (status is not %q)", n.ID, signals.StatusInvalidated)
	}
	if run.Spec.Agent.Graph != nil && graphPlace(run, n) == "" && n.Kind != signals.KindTask {
		return fmt.Errorf("edit: %s belongs to no node of the graph (it answered the escalation ladder): in a graph run the task, a node's model request, call or human reply can be edited", n.ID)
	}
	switch n.Kind {
	case signals.KindTask, signals.KindRequest, signals.KindHuman:
		if len(req.Args) > 0 {
			return fmt.Errorf(`edit: %s is a %s: "args" edits a call's arguments; give "output"`, n.ID, n.Kind)
		}
		if n.Status != signals.StatusCompleted {
			return fmt.Errorf("edit: %s is %s: edit it once it has finished", n.ID, n.Status)
		}
		if len(req.Output) == 0 {
			return nil // a fork from the node as it was
		}
		_, err := r.editedValue(n, req)
		return err
	case signals.KindCall:
		return r.callEditWanted(n, req)
	}
	return fmt.Errorf("edit: %s is a node of kind %s, which cannot be edited: edit the task, a model request, a call or a person's reply", n.ID, n.Kind)
}

// callEditWanted checks an edit of a call: finished (or waiting for
// approval, for its arguments), not the output, arguments that fit.
func (r *runner) callEditWanted(n *Node, req signals.EditRequest) error {
	if n.Tool == FinalOutputTool {
		return fmt.Errorf("edit: %s is the %s call: edit the request that made it (%s) instead", n.ID, FinalOutputTool, strings.Join(n.Parents, ", "))
	}
	if n.ModelCallID == "" && len(req.Args) > 0 {
		return fmt.Errorf(`edit: %s is the call of graph node %s, whose arguments are the graph's: edit its "output"`, n.ID, n.GraphNode)
	}
	waitsFor, _ := r.person().ApprovalTool(n.ID)
	waiting := n.Status == signals.StatusAwaitingApproval && waitsFor != ""
	switch {
	case waiting && len(req.Output) > 0:
		return fmt.Errorf(`edit: %s waits for approval and has not run, so it has no output: edit its "args", or settle it with approve`, n.ID)
	case waiting && req.Fork:
		return fmt.Errorf("edit: %s waits for approval: fork from a node that has finished", n.ID)
	case !waiting && n.Status != signals.StatusCompleted && n.Status != signals.StatusFailed:
		return fmt.Errorf("edit: %s is %s: edit it once it has finished", n.ID, n.Status)
	}
	if len(req.Args) == 0 {
		return nil
	}
	toolName := n.AskedTool()
	if waiting {
		toolName = waitsFor // the call's tool, or a fallback standing in
	}
	tool, ok := r.run.Spec.AgentTool(toolName)
	if !ok {
		return fmt.Errorf("edit: %s names %s: replace the call by editing its request instead", n.ID, unknownTool(toolName, toolNames(r.run.Spec)))
	}
	var obj map[string]any
	if err := json.Unmarshal(req.Args, &obj); err != nil {
		return fmt.Errorf(`edit: "args" is not a JSON object: %v`, err)
	}
	if _, ok := obj[OutputPathArg]; ok {
		return fmt.Errorf(`edit: "args" may not set %s: the call keeps the State path it writes`, OutputPathArg)
	}
	found := refs.Find(obj)
	for _, f := range found {
		if f.Err != nil {
			return fmt.Errorf(`edit: "args" %s: %v`, f.At, f.Err)
		}
	}
	if waiting && len(found) > 0 {
		return fmt.Errorf(`edit: %s waits for approval with its references resolved: give "args" as plain values`, n.ID)
	}
	if len(found) == 0 {
		if problem := r.checkArgs(tool, req.Args); problem != "" {
			return fmt.Errorf(`edit: "args" for %s: %s`, tool.Name, problem)
		}
	}
	return nil
}

// editedValue is what an edit makes of a task, request or human node, in
// the form the node keeps it.
func (r *runner) editedValue(n *Node, req signals.EditRequest) (json.RawMessage, error) {
	switch n.Kind {
	case signals.KindTask:
		return editedTask(r.run, req.Output)
	case signals.KindRequest:
		var rec replyRecord
		if err := decodeRecorded(n, "the recorded model reply", n.Output, &rec); err != nil {
			return nil, fmt.Errorf("edit: %v", err)
		}
		return editedReply(r.run, n.ID, rec, req.Output)
	case signals.KindHuman:
		return editedHumanReply(req.Output)
	}
	return req.Output, nil
}

// editedTask reads a task edit: a string (the new task) or {"task"?,
// "input"?}; what it leaves out stays.
func editedTask(run *Run, out json.RawMessage) (json.RawMessage, error) {
	task, input := run.Input.Task, inputOrEmpty(run.Input.Input)
	var text string
	if json.Unmarshal(out, &text) == nil {
		task = text
	} else {
		var obj struct {
			Task  *string         `json:"task"`
			Input json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(out, &obj); err != nil {
			return nil, fmt.Errorf(`edit: a task's "output" is the new task (a string) or {"task", "input"}: %v`, err)
		}
		if obj.Task != nil {
			task = *obj.Task
		}
		if len(obj.Input) > 0 {
			if !isJSONObject(obj.Input) {
				return nil, fmt.Errorf(`edit: the task's "input" must be a JSON object`)
			}
			input = obj.Input
		}
	}
	if strings.TrimSpace(task) == "" {
		return nil, fmt.Errorf("edit: the task would be empty")
	}
	return mustJSON(map[string]any{"task": task, "input": input}), nil
}

// editedCall is a call as an edit of a request gives it; args may be a
// JSON object or the text of one (as the model writes it).
type editedCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// editedReply reads a request edit: a string (the new thought, the calls
// stay) or {"content"?, "tool_calls"?}; tool_calls, when given, replace
// the calls.
func editedReply(run *Run, nodeID string, rec replyRecord, out json.RawMessage) (json.RawMessage, error) {
	var text string
	if json.Unmarshal(out, &text) == nil {
		rec.Content = text
		return mustJSON(rec), nil
	}
	var obj struct {
		Content   *string       `json:"content"`
		ToolCalls *[]editedCall `json:"tool_calls"`
	}
	if err := json.Unmarshal(out, &obj); err != nil {
		return nil, fmt.Errorf(`edit: a request's "output" is its new thought (a string) or {"content", "tool_calls": [{"name", "args"}]}: %v`, err)
	}
	if obj.Content != nil {
		rec.Content = *obj.Content
	}
	if obj.ToolCalls != nil {
		calls, err := editedCalls(run, nodeID, *obj.ToolCalls)
		if err != nil {
			return nil, err
		}
		rec.ToolCalls = calls
	}
	if strings.TrimSpace(rec.Content) == "" && len(rec.ToolCalls) == 0 {
		return nil, fmt.Errorf("edit: the request would have neither a thought nor calls")
	}
	return mustJSON(rec), nil
}

func editedCalls(run *Run, nodeID string, in []editedCall) ([]activities.ToolCall, error) {
	known := append(append([]string{}, run.Spec.Agent.Tools...), FinalOutputTool)
	out := make([]activities.ToolCall, len(in))
	seen := map[string]bool{}
	for i, c := range in {
		if c.Name != FinalOutputTool {
			if _, ok := run.Spec.AgentTool(c.Name); !ok {
				return nil, fmt.Errorf("edit: tool_calls[%d] names %s", i, unknownTool(c.Name, known))
			}
		}
		args := string(c.Args)
		var s string
		if json.Unmarshal(c.Args, &s) == nil {
			args = s
		}
		if len(c.Args) == 0 {
			args = "{}"
		}
		if _, problem := parseArgs(args); problem != "" {
			return nil, fmt.Errorf("edit: tool_calls[%d].args: %s", i, problem)
		}
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("edit_%s_%d", nodeID, i)
		}
		if seen[id] {
			return nil, fmt.Errorf("edit: tool_calls[%d].id %q is used twice", i, id)
		}
		seen[id] = true
		out[i] = activities.ToolCall{ID: id, Name: c.Name, Args: args}
	}
	return out, nil
}

// editedHumanReply reads a reply edit: a string (the text) or a reply.
func editedHumanReply(out json.RawMessage) (json.RawMessage, error) {
	var reply signals.ReplyRequest
	var text string
	if json.Unmarshal(out, &text) == nil {
		reply.Text = text
	} else if err := json.Unmarshal(out, &reply); err != nil {
		return nil, fmt.Errorf(`edit: a reply's "output" is its text (a string) or {"text", "output"}: %v`, err)
	}
	if err := reply.Validate(); err != nil {
		return nil, fmt.Errorf("edit: %v", err)
	}
	return mustJSON(reply), nil
}

// acceptEdit takes an edit the run can apply, from the update (wait: the
// answer is awaited) or the signal. A call waiting for approval has its
// arguments changed at once; any other edit interrupts the run, which
// applies it and continues as new.
func (r *runner) acceptEdit(ctx workflow.Context, req signals.EditRequest, wait bool) (signals.EditResult, error) {
	if err := r.editWanted(req); err != nil {
		return signals.EditResult{}, err
	}
	if req.Fork && !wait {
		// A signal: the fork starts in a coroutine of its own, so the
		// run's other messages are not held up; a failure is in the trace.
		r.guard.goGuarded(ctx, "the fork of "+req.NodeID, func(ctx workflow.Context) {
			if _, err := r.fork(ctx, req); err != nil {
				workflow.GetLogger(ctx).Warn("fork not started", "node", req.NodeID, "error", err.Error())
			}
		}, nil)
		return signals.EditResult{}, nil
	}
	if req.Fork {
		return r.fork(ctx, req)
	}
	if n := r.run.node(req.NodeID); n.Status == signals.StatusAwaitingApproval {
		return r.editWaitingCall(ctx, n, req), nil
	}
	pe := &pendingEdit{req: req, wait: wait}
	live(r.life.Interrupt(life.Edit))
	r.editing = pe
	if !wait {
		return signals.EditResult{}, nil
	}
	if err := workflow.Await(ctx, func() bool { return r.life.Answered() }); err != nil {
		return signals.EditResult{}, err
	}
	return pe.result, pe.err
}

// editWaitingCall changes the arguments of a call waiting for approval:
// it goes on waiting, and the person who approves it approves the edited
// arguments (the model is told a person changed them).
func (r *runner) editWaitingCall(ctx workflow.Context, n *Node, req signals.EditRequest) signals.EditResult {
	before := n.Args
	n.Args = req.Args
	id := n.ID
	r.argsEdited[id] = req.Audit
	e := r.addEditNode(ctx, id, req.Audit, mustJSON(map[string]any{"args": before}), mustJSON(map[string]any{"args": req.Args}), nil)
	return signals.EditResult{NodeID: e, Edited: id, Invalidated: []string{}, Generation: r.run.Generation}
}

// graphPlace is the graph node a trace node belongs to: its own tag, or
// for a model's call, its request's (an llm node's step).
func graphPlace(run *Run, n *Node) string {
	if n.GraphNode != "" || n.Kind != signals.KindCall || n.ModelCallID == "" || len(n.Parents) != 1 {
		return n.GraphNode
	}
	if req := run.node(n.Parents[0]); req != nil {
		return req.GraphNode
	}
	return ""
}

// markEditedArgs tells the model that a person changed the arguments of a
// call while it waited for approval (unless the approval itself changed
// the call, which says so).
func (r *runner) markEditedArgs(nodeID string, audit signals.Audit, tool string, args json.RawMessage) {
	delete(r.argsEdited, nodeID)
	if n := r.run.node(nodeID); n != nil && len(n.RanAs) == 0 {
		n.RanAs = mustJSON(map[string]any{"decision": "edit", "by": audit.By, "reason": audit.Reason, "tool": tool, "args": args})
	}
}

// addEditNode records an edit: who, why, the value before and after, and
// what it invalidated.
func (r *runner) addEditNode(ctx workflow.Context, edited string, audit signals.Audit, before, after json.RawMessage, invalidated []string) string {
	out := map[string]any{"invalidated": nonNil(invalidated)}
	r.count(ctx, MetricEdits, 1)
	return r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindEdit, Status: signals.StatusCompleted, Parents: []string{edited},
		By: shortText(audit.By, 200), Reason: shortText(audit.Reason, 1000), Before: before, After: after,
		Output: mustJSON(out),
	}, Step: r.run.Step}).ID
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// lineage is the trace as policies.PlanEdit reads it: for each call of a
// model's reply, the calls of its step whose State writes it references
// (final_output reads them all).
func (r *runner) lineage() []policies.LineageNode {
	run := r.run
	deps := stepDependencies(run)
	out := make([]policies.LineageNode, len(run.Nodes))
	for i := range run.Nodes {
		n := &run.Nodes[i]
		ln := policies.LineageNode{
			ID: n.ID, Kind: string(n.Kind),
			Settled: n.Status == signals.StatusCompleted || (n.Status == signals.StatusFailed && !notRun(n)),
			Invalid: n.Status == signals.StatusInvalidated,
			Audit:   n.Kind == signals.KindEdit || (n.Kind == signals.KindHuman && n.Status == signals.StatusSkipped),
		}
		switch n.Kind {
		case signals.KindCall:
			if n.ModelCallID != "" && len(n.Parents) == 1 {
				ln.Request = n.Parents[0]
			}
			ln.DependsOn = deps[n.ID]
		case signals.KindRepair, signals.KindApproval:
			if len(n.Parents) == 1 {
				ln.Of = n.Parents[0]
			}
		}
		out[i] = ln
	}
	return out
}

// stepDependencies maps each valid call of a model's reply to the valid
// calls of the same reply it read from, as refs.Plan orders them.
func stepDependencies(run *Run) map[string][]string {
	deps := map[string][]string{}
	for i := range run.Nodes {
		req := &run.Nodes[i]
		if req.Kind != signals.KindRequest || req.Status != signals.StatusCompleted {
			continue
		}
		var rec replyRecord
		if json.Unmarshal(req.Output, &rec) != nil || len(rec.ToolCalls) == 0 {
			continue
		}
		ids := make([]string, len(rec.ToolCalls))
		io := make([]refs.CallIO, len(rec.ToolCalls))
		for j, tc := range rec.ToolCalls {
			if n := validCall(run, req.ID, tc.ID); n != nil {
				ids[j] = n.ID
			}
			io[j] = callIO(tc)
		}
		plan, _ := refs.Plan(io)
		for j, tc := range rec.ToolCalls {
			if ids[j] == "" {
				continue
			}
			for k := range rec.ToolCalls {
				reads := tc.Name == FinalOutputTool && k != j
				if !reads {
					for _, d := range plan[j] {
						reads = reads || d == k
					}
				}
				if reads && ids[k] != "" {
					deps[ids[j]] = append(deps[ids[j]], ids[k])
				}
			}
		}
	}
	return deps
}

// validCall is the call node, not invalidated, that answers a model call
// id of a request.
func validCall(run *Run, reqID, modelCallID string) *Node {
	for i := len(run.Nodes) - 1; i >= 0; i-- {
		n := &run.Nodes[i]
		if n.Kind == signals.KindCall && n.ModelCallID == modelCallID && n.Status != signals.StatusInvalidated && !n.Superseded &&
			len(n.Parents) == 1 && n.Parents[0] == reqID {
			return n
		}
	}
	return nil
}

// callIO is what a model's call reads and writes in State, from its
// arguments as the model wrote them.
func callIO(tc activities.ToolCall) refs.CallIO {
	args, problem := parseArgs(tc.Args)
	if problem != "" {
		return refs.CallIO{}
	}
	doc, err := decodeJSON(args)
	if err != nil {
		return refs.CallIO{}
	}
	obj := doc.(map[string]any)
	var io refs.CallIO
	if s, ok := obj[OutputPathArg].(string); ok {
		if p, err := refs.ParseOutputPath(s); err == nil {
			io.Write = &p
		}
		delete(obj, OutputPathArg)
	}
	io.Reads = refs.Reads(refs.Find(obj))
	return io
}
