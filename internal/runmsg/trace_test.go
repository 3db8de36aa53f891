package runmsg

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

func nodes(ids ...string) []signals.Node {
	out := make([]signals.Node, len(ids))
	for i, id := range ids {
		out[i] = signals.Node{ID: id}
	}
	return out
}

// Three generations: the latest holds n1 and n7-n9, and names run g1,
// which holds n1 and n4-n7 and names run g0 (n1-n5).
func TestReadWholeTraceJoinsTheArchivedGenerations(t *testing.T) {
	runs := map[string]signals.Trace{
		"": {Generation: 2, Nodes: nodes("n1", "n7", "n8", "n9"),
			Archived: &signals.ArchivedNodes{Nodes: 5, Through: "n6", Last: "n6", WorkflowID: "w", RunID: "g1"}},
		"g1": {Generation: 1, Nodes: nodes("n1", "n4", "n5", "n6", "n7"),
			Archived: &signals.ArchivedNodes{Nodes: 2, Through: "n3", Last: "n3", WorkflowID: "w", RunID: "g0"}},
		"g0": {Nodes: nodes("n1", "n2", "n3", "n4", "n5")},
	}
	var asked []string
	tr, err := ReadWholeTrace(context.Background(), "w", "", func(wid, rid string) TraceQuery {
		return func(_ context.Context, out *signals.Trace, _ ...any) error {
			asked = append(asked, wid+"/"+rid)
			*out = runs[rid]
			return nil
		}
	})
	require.NoError(t, err)
	var ids, archived []string
	for _, n := range tr.Nodes {
		ids = append(ids, n.ID)
		if n.Archived {
			archived = append(archived, n.ID)
		}
	}
	require.Equal(t, []string{"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9"}, ids)
	require.Equal(t, []string{"n2", "n3", "n4", "n5", "n6"}, archived, "the nodes read from closed generations are marked")
	require.Equal(t, []string{"w/", "w/g1", "w/g0"}, asked)
	require.Nil(t, tr.Archived)
	require.Equal(t, 2, tr.Generation)
}

func TestReadWholeTraceRefusesARunNamingItself(t *testing.T) {
	self := signals.Trace{Nodes: nodes("n2"), Archived: &signals.ArchivedNodes{Through: "n1", Last: "n1", WorkflowID: "w", RunID: "g"}}
	_, err := ReadWholeTrace(context.Background(), "w", "g", func(string, string) TraceQuery {
		return func(_ context.Context, out *signals.Trace, _ ...any) error { *out = self; return nil }
	})
	require.ErrorContains(t, err, "names itself")
}

// Invalidated nodes archived after the oldest part are read too, up to the
// first answer's last (a fork's source holds later ones that are not the
// fork's).
func TestReadWholeTraceTakesArchivedInvalidatedNodes(t *testing.T) {
	dead := func(id string) signals.Node { return signals.Node{ID: id, Status: signals.StatusInvalidated} }
	runs := map[string]signals.Trace{
		"": {Nodes: nodes("n1", "n3", "n5"),
			Archived: &signals.ArchivedNodes{Nodes: 2, Through: "n2", Last: "n4", WorkflowID: "src", RunID: "g0"}},
		"g0": {Nodes: append(nodes("n1", "n2", "n3"), dead("n4"), signals.Node{ID: "n5"}, dead("n6"))},
	}
	tr, err := ReadWholeTrace(context.Background(), "fork", "", func(_, rid string) TraceQuery {
		return func(_ context.Context, out *signals.Trace, _ ...any) error { *out = runs[rid]; return nil }
	})
	require.NoError(t, err)
	var ids []string
	for _, n := range tr.Nodes {
		ids = append(ids, n.ID)
	}
	require.Equal(t, []string{"n1", "n2", "n3", "n4", "n5"}, ids)
}
