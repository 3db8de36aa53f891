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
// invalidated, except for an edited call: the calls of its step that did
// not read it (through their references, directly or through another call
// of the step) and have finished are kept with what belongs to them; the
// step's calls that had not finished are invalidated and run again.
// Records of messages (Audit) are never invalidated.
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
	case edited.Kind == "call" && edited.Request == "":
		return EditPlan{}, fmt.Errorf("node %s is a graph node's call: editing graph runs is not available yet", e.Node)
	}
	plan := EditPlan{}
	from := at
	keep := map[string]bool{}
	switch edited.Kind {
	case "request":
		plan.ResumeCalls = edited.ID
	case "call":
		plan.ResumeCalls = edited.Request
		from = slices.IndexFunc(nodes, func(n LineageNode) bool { return n.ID == edited.Request })
		if from < 0 {
			return EditPlan{}, fmt.Errorf("call %s names request %s, which is not in the trace", e.Node, edited.Request)
		}
		keep = keptSiblings(nodes, edited, e.Rerun)
	}
	for _, n := range nodes[from+1:] {
		if n.Audit || n.Invalid || keep[n.ID] || (n.Of != "" && keep[n.Of]) {
			continue
		}
		plan.Invalidated = append(plan.Invalidated, n.ID)
	}
	return plan, nil
}

// keptSiblings are the calls of an edited call's step that stay: finished
// and reading nothing the edit changed. The edited call stays unless it
// runs again.
func keptSiblings(nodes []LineageNode, edited LineageNode, rerun bool) map[string]bool {
	changed := map[string]bool{edited.ID: true}
	for grew := true; grew; {
		grew = false
		for _, n := range nodes {
			if n.Kind != "call" || n.Request != edited.Request || n.Invalid || changed[n.ID] {
				continue
			}
			if slices.ContainsFunc(n.DependsOn, func(d string) bool { return changed[d] }) {
				changed[n.ID], grew = true, true
			}
		}
	}
	keep := map[string]bool{}
	for _, n := range nodes {
		if n.Kind != "call" || n.Request != edited.Request || n.Invalid {
			continue
		}
		switch {
		case n.ID == edited.ID:
			keep[n.ID] = !rerun
		case !changed[n.ID] && n.Settled:
			keep[n.ID] = true
		}
	}
	return keep
}
