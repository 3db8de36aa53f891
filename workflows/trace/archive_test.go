package trace

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
)

// A later archive adds to what an earlier one cost; an invalidated node
// archived after Through stays apart until Through passes it; the
// earlier archive (the generation's that holds it) is not changed.
func TestArchivedSpendAddsToTheEarlierArchive(t *testing.T) {
	prev := Archive{Spent: map[string]*policies.Spend{"agent": {ModelRequests: 3}}}
	gone := []Node{
		{Node: signals.Node{ID: "n9000", Agent: "agent"}, Spent: &policies.Spend{ModelRequests: 1}},
		{Node: signals.Node{ID: "n9002", Agent: "other", Status: signals.StatusInvalidated}, Spent: &policies.Spend{ToolCalls: 1}},
	}
	spent, after := archivedSpend(prev, gone, "n9000")
	require.Equal(t, int64(4), spent["agent"].ModelRequests)
	require.Equal(t, []NodeSpend{{ID: "n9002", Agent: "other", Spent: policies.Spend{ToolCalls: 1}}}, after)
	spent, after = archivedSpend(Archive{Spent: spent, SpentAfter: after}, nil, "n9002")
	require.Empty(t, after)
	require.Equal(t, int64(1), spent["other"].ToolCalls)
	require.Equal(t, int64(4), spent["agent"].ModelRequests)
	require.Equal(t, int64(3), prev.Spent["agent"].ModelRequests, "the earlier archive is not changed")
}

// Carried keeps the nodes the cut keeps, says where the others are, and
// leaves the trace it was taken from whole.
func TestCarriedArchivesWhatTheCutLeaves(t *testing.T) {
	tr := &Trace{}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, s := range []signals.NodeStatus{signals.StatusCompleted, signals.StatusInvalidated, signals.StatusCompleted, signals.StatusCompleted} {
		tr.Add(Node{Node: signals.Node{Status: s}, Spent: &policies.Spend{ModelRequests: 1}}, "agent", at)
	}
	tr.Started("n4")
	var base []Node
	c := tr.Carried([]bool{false, false, false, true}, Where{WorkflowID: "w", RunID: "r", Generation: 2},
		func(prev refs.State, gone []Node) refs.State { base = gone; return refs.State{"x": 1} })
	require.Len(t, tr.Nodes, 4, "the trace itself is not changed")
	require.Nil(t, tr.Archived)
	require.Len(t, c.Nodes, 1)
	require.Equal(t, "n4", c.Nodes[0].ID)
	require.Equal(t, []string{"n4"}, c.Frontier)
	require.Len(t, base, 3)
	require.Equal(t, &Archive{Nodes: 3, Through: "n3", Last: "n3", WorkflowID: "w", RunID: "r", Generation: 2,
		StateBase: refs.State{"x": 1}, Spent: map[string]*policies.Spend{"agent": {ModelRequests: 3}}}, c.Archived)
}
