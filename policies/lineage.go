package policies

import (
	"fmt"
	"slices"
)

// LineageNode is a trace node as an edit's invalidation sees it: what it
// read, and so what it depends on.
type LineageNode struct {
	ID string
	// Kind is the node's kind: "task", "request", "call", "human", or
	// another kind (repairs, approvals, escalations, outputs).
	Kind string
	// Request is, for a call, the model request whose reply asked for it
	// ("" for a call a graph node made).
	Request string
	// Of is, for a node that belongs to a call (its repair, its approval),
	// that call.
	Of string
	// DependsOn are, for a call, the calls of its own step whose output it
	// read: it referenced a State path they wrote.
	DependsOn []string
	// Settled: the node has finished (completed or failed).
	Settled bool
	// Audit: a record of a message to the run (an edit, an ignored
	// signal); it is history, never invalidated.
	Audit bool
	// Invalid: an earlier edit invalidated it.
	Invalid bool
}

// Edit is a change a person makes to one node.
type Edit struct {
	Node string
	// Rerun: a call's arguments changed, so the call itself runs again.
	Rerun bool
	// Unchanged are, for an edited model request, its calls that the edit
	// left as they were (same call, tool and arguments).
	Unchanged []string
}

// EditPlan is what an edit invalidates and where the run resumes.
type EditPlan struct {
	// Invalidated are the nodes that depended on the edited one, in trace
	// order (the edited call itself when it runs again).
	Invalidated []string
	// ResumeCalls is the model request whose calls are run again (those not
	// kept) before the next request: the edited request itself, or the one
	// that asked for the edited call. "" means the run resumes with the next
	// model request.
	ResumeCalls string
}

// PlanEdit applies invalidation by lineage. A model request depends on the
// whole conversation before it, so everything after the edited node is
// invalidated, except within the step of an edited call or request: the
// calls of the step the edit did not change, that did not read a changed
// one (through their references, directly or through another call of the
// step) and that have finished are kept with what belongs to them; the
// step's calls that had not finished are invalidated and run again. A
// graph node's call (no request) is followed by the rest of the walk, all
// of it invalidated. Records of messages (Audit) are never invalidated.
func PlanEdit(nodes []LineageNode, e Edit) (EditPlan, error) {
	at := slices.IndexFunc(nodes, func(n LineageNode) bool { return n.ID == e.Node })
	if at < 0 {
		return EditPlan{}, fmt.Errorf("node %s is not in the trace", e.Node)
	}
	edited := nodes[at]
	switch {
	case edited.Invalid:
		return EditPlan{}, fmt.Errorf("node %s was invalidated by an earlier edit", e.Node)
	case edited.Audit:
		return EditPlan{}, fmt.Errorf("node %s is a record of a message and cannot be edited", e.Node)
	case e.Rerun && edited.Kind != "call":
		return EditPlan{}, fmt.Errorf("node %s is a %s: only a call's arguments can be edited", e.Node, edited.Kind)
	case e.Rerun && edited.Request == "":
		return EditPlan{}, fmt.Errorf("node %s is a graph node's call, whose arguments are the graph's: edit its output", e.Node)
	}
	plan := EditPlan{}
	from := at
	keep := map[string]bool{}
	switch edited.Kind {
	case "request":
		plan.ResumeCalls = edited.ID
		changed := map[string]bool{}
		for _, n := range nodes {
			if n.Kind == "call" && n.Request == edited.ID && !slices.Contains(e.Unchanged, n.ID) {
				changed[n.ID] = true
			}
		}
		keep = keptCalls(nodes, edited.ID, changed)
	case "call":
		if edited.Request == "" {
			break // a graph node's call: what followed it, as for any node
		}
		plan.ResumeCalls = edited.Request
		from = slices.IndexFunc(nodes, func(n LineageNode) bool { return n.ID == edited.Request })
		if from < 0 {
			return EditPlan{}, fmt.Errorf("call %s names request %s, which is not in the trace", e.Node, edited.Request)
		}
		keep = keptCalls(nodes, edited.Request, map[string]bool{edited.ID: true})
		keep[edited.ID] = !e.Rerun
	}
	for _, n := range nodes[from+1:] {
		if n.Audit || n.Invalid || keep[n.ID] || (n.Of != "" && keep[n.Of]) {
			continue
		}
		plan.Invalidated = append(plan.Invalidated, n.ID)
	}
	return plan, nil
}

// keptCalls are the calls of a step that stay: not changed by the edit,
// finished, and reading nothing it changed.
func keptCalls(nodes []LineageNode, request string, changed map[string]bool) map[string]bool {
	for grew := true; grew; {
		grew = false
		for _, n := range nodes {
			if n.Kind != "call" || n.Request != request || n.Invalid || changed[n.ID] {
				continue
			}
			if slices.ContainsFunc(n.DependsOn, func(d string) bool { return changed[d] }) {
				changed[n.ID], grew = true, true
			}
		}
	}
	keep := map[string]bool{}
	for _, n := range nodes {
		if n.Kind == "call" && n.Request == request && !n.Invalid && !changed[n.ID] && n.Settled {
			keep[n.ID] = true
		}
	}
	return keep
}
