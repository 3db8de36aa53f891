package edit

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// Wanted says whether an edit can apply now, naming what is wrong. The
// update's validator and the signal both ask it, and nothing it reads
// changes the run.
func (e *Edits) Wanted(req signals.EditRequest) error {
	switch e.life.Accepted() {
	case life.Edit:
		return fmt.Errorf("edit: an edit of %s is being applied; the run goes on in generation %d: send this edit again then, against the trace it shows",
			e.mem.accepted.req.NodeID, e.host.Generation()+1)
	case life.Handoff:
		return fmt.Errorf("edit: the run is being handed over; it goes on in generation %d: send the edit again then, against the trace it shows", e.host.Generation()+1)
	}
	return e.applies(req)
}

// applies says whether an edit applies to the run as it is, whatever was
// accepted before it (the edit being applied asks it too).
func (e *Edits) applies(req signals.EditRequest) error {
	h := e.host
	if e.life.Closing() {
		return fmt.Errorf("edit: the run is closing (it finishes, or continues as new into generation %d): send the edit again in a moment, or fork it", h.Generation()+1)
	}
	if h.IsArchived(req.NodeID) {
		return h.RefuseArchived(req.NodeID)
	}
	n := e.tr.Node(req.NodeID)
	if n == nil {
		return fmt.Errorf("edit: %q is not a node of this run (the trace query lists them)", req.NodeID)
	}
	if n.Kind == signals.KindTask && e.tr.Archived != nil {
		return h.RefuseArchived(req.NodeID)
	}
	if n.Kind == signals.KindTask && h.IsMessage(n) {
		return fmt.Errorf("edit: %s is a conversation's message, which cannot be edited yet: edit the output or a call of the turn it started, or send the next message", n.ID)
	}
	if n.Kind == signals.KindHuman && n.Status == signals.StatusSkipped {
		return fmt.Errorf("edit: %s is the record of an ignored message, which cannot be edited", n.ID)
	}
	if last := h.LastHandoff(); last >= 0 && e.tr.Index(n.ID) <= last {
		return fmt.Errorf("edit: %s came before the run was handed to %s at %s: edit a node after the handoff (what came before belongs to the agent that handed the run over)",
			n.ID, h.Spec().Agent.Name, e.tr.Nodes[last].ID)
	}
	if n.Status == signals.StatusInvalidated {
		return fmt.Errorf("edit: %s was invalidated by an earlier edit or a rollback: edit a node that is still valid (status is not %q)", n.ID, signals.StatusInvalidated)
	}
	if h.Graph() && graphPlace(e.tr, n) == "" && n.Kind != signals.KindTask {
		return fmt.Errorf("edit: %s belongs to no node of the graph (it answered the escalation ladder): in a graph run the task, a node's model request, call or human reply can be edited", n.ID)
	}
	switch n.Kind {
	case signals.KindTask, signals.KindRequest, signals.KindHuman:
		if len(req.Args) > 0 {
			return fmt.Errorf(`edit: %s is a %s: "args" edits a call's arguments; give "output"`, n.ID, n.Kind)
		}
		if n.Status != signals.StatusCompleted {
			return e.unfinished(n)
		}
		if len(req.Output) == 0 {
			return nil // a fork from the node as it was
		}
		_, err := e.editedValue(n, req)
		return err
	case signals.KindCall:
		return e.callWanted(n, req)
	}
	return fmt.Errorf("edit: %s is a node of kind %s, which cannot be edited: edit the task, a model request, a call or a person's reply", n.ID, n.Kind)
}

// unfinished refuses an edit of node n, which has not finished: one that
// waits out an outage says so, since it may wait for minutes.
func (e *Edits) unfinished(n *trace.Node) error {
	if of := e.host.WaitsOutOf(n.ID); of != "" {
		return fmt.Errorf("edit: %s waits out an outage of %s and has not finished: edit an earlier node (the wait ends and the run goes on from it), or this one once it has finished", n.ID, of)
	}
	return fmt.Errorf("edit: %s is %s: edit it once it has finished", n.ID, n.Status)
}

// callWanted checks an edit of a call: finished (or waiting for approval,
// for its arguments), not the output, arguments that fit.
func (e *Edits) callWanted(n *trace.Node, req signals.EditRequest) error {
	h := e.host
	if n.Tool == signals.FinalOutputTool {
		return fmt.Errorf("edit: %s is the %s call: edit the request that made it (%s) instead", n.ID, signals.FinalOutputTool, strings.Join(n.Parents, ", "))
	}
	if n.ModelCallID == "" && len(req.Args) > 0 {
		return fmt.Errorf(`edit: %s is the call of graph node %s, whose arguments are the graph's: edit its "output"`, n.ID, n.GraphNode)
	}
	waitsFor := h.WaitsFor(n.ID)
	waiting := n.Status == signals.StatusAwaitingApproval && waitsFor != ""
	switch {
	case waiting && len(req.Output) > 0:
		return fmt.Errorf(`edit: %s waits for approval and has not run, so it has no output: edit its "args", or settle it with approve`, n.ID)
	case waiting && req.Fork:
		return fmt.Errorf("edit: %s waits for approval: fork from a node that has finished", n.ID)
	case !waiting && n.Status != signals.StatusCompleted && n.Status != signals.StatusFailed:
		return e.unfinished(n)
	}
	if len(req.Args) == 0 {
		return nil
	}
	toolName := n.AskedTool()
	if waiting {
		toolName = waitsFor // the call's tool, or a fallback standing in
	}
	tool, ok := h.Spec().AgentTool(toolName)
	if !ok {
		return fmt.Errorf("edit: %s names %s: replace the call by editing its request instead", n.ID, h.UnknownTool(toolName))
	}
	var obj map[string]any
	if err := json.Unmarshal(req.Args, &obj); err != nil {
		return fmt.Errorf(`edit: "args" is not a JSON object: %v`, err)
	}
	if _, ok := obj[refs.OutputPathArg]; ok {
		return fmt.Errorf(`edit: "args" may not set %s: the call keeps the State path it writes`, refs.OutputPathArg)
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
		if problem := h.CheckArgs(tool, req.Args); problem != "" {
			return fmt.Errorf(`edit: "args" for %s: %s`, tool.Name, problem)
		}
	}
	return nil
}

// graphPlace is the graph node a trace node belongs to: its own tag, or
// for a model's call, its request's (an llm node's step).
func graphPlace(t *trace.Trace, n *trace.Node) string {
	if n.GraphNode != "" || n.Kind != signals.KindCall || n.ModelCallID == "" || len(n.Parents) != 1 {
		return n.GraphNode
	}
	if req := t.Node(n.Parents[0]); req != nil {
		return req.GraphNode
	}
	return ""
}
