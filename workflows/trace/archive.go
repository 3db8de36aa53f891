package trace

import (
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
)

// Where is the generation that holds a trace's archived part.
type Where struct {
	WorkflowID, RunID string
	Generation        int
}

// Carried is the trace as continue-as-new carries it when its archived
// part grows (workflows/archive.go decides the cut, keep): the nodes keep
// says, and an Archive saying where the others stay (at), with State as
// their calls wrote it over the earlier archive's (stateBase). The trace
// itself is not changed: this generation's queries go on answering every
// node it held.
func (t *Trace) Carried(keep []bool, at Where, stateBase func(prev refs.State, gone []Node) refs.State) Trace {
	carried := *t
	carried.Nodes = make([]Node, 0, len(t.Nodes))
	var gone []Node
	for i, k := range keep {
		if k {
			carried.Nodes = append(carried.Nodes, t.Nodes[i])
		} else {
			gone = append(gone, t.Nodes[i])
		}
	}
	prev := Archive{}
	if t.Archived != nil {
		prev = *t.Archived
	}
	through, last := prev.Through, prev.Last
	for _, n := range gone {
		if Number(n.ID) > Number(last) {
			last = n.ID
		}
		if n.Status != signals.StatusInvalidated && Number(n.ID) > Number(through) {
			through = n.ID
		}
	}
	carried.Archived = &Archive{
		Nodes:      prev.Nodes + len(gone),
		Through:    through,
		Last:       last,
		WorkflowID: at.WorkflowID,
		RunID:      at.RunID,
		Generation: at.Generation,
		StateBase:  stateBase(prev.StateBase, gone),
	}
	carried.Archived.Spent, carried.Archived.SpentAfter = archivedSpend(prev, gone, through)
	return carried
}

// archivedSpend is what the archived nodes cost, those of an earlier
// archive and the nodes gone now: through node through by agent, each
// after it on its own (new values: this generation's archive, which its
// queries answer, does not change).
func archivedSpend(prev Archive, gone []Node, through string) (map[string]*policies.Spend, []NodeSpend) {
	var spent map[string]*policies.Spend
	var after []NodeSpend
	add := func(n NodeSpend) {
		if Number(n.ID) > Number(through) {
			after = append(after, n)
			return
		}
		if spent == nil {
			spent = map[string]*policies.Spend{}
		}
		if spent[n.Agent] == nil {
			spent[n.Agent] = &policies.Spend{}
		}
		spent[n.Agent].Add(n.Spent)
	}
	// Copied into a map: the order does not matter (no id: through).
	//workflowcheck:ignore
	for agent, s := range prev.Spent {
		add(NodeSpend{Agent: agent, Spent: *s})
	}
	for _, n := range prev.SpentAfter {
		add(n)
	}
	for _, n := range gone {
		if n.Spent != nil {
			add(NodeSpend{ID: n.ID, Agent: n.Agent, Spent: *n.Spent})
		}
	}
	return spent, after
}
