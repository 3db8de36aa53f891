package workflows

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/chat"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// Why a node did not run is not carried: the carried state keeps its
// shape, and a run loaded (carried, or recorded by an earlier version)
// knows it again from its trace.
func TestALoadedRunKnowsWhichNodesDidNotRun(t *testing.T) {
	failed := func(id string, kind signals.NodeKind, text string, why life.NotRun) Node {
		return Node{Node: signals.Node{ID: id, Kind: kind, Status: signals.StatusFailed, Error: text}, NotRun: why}
	}
	nodes := []Node{
		failed("n1", signals.KindCall, interruptedText, life.Interrupted),
		failed("n2", signals.KindCall, handedOverText, life.HandedOver),
		failed("n3", signals.KindCall, neverRanText, life.NeverRan),
		failed("n4", signals.KindRequest, chat.CutInText+" (double_text: interrupt)", life.CutIn),
		failed("n5", signals.KindCall, "HTTP 500", ""),
	}
	data, err := json.Marshal(&Run{Spec: testSpec(), Trace: Trace{Nodes: nodes}})
	require.NoError(t, err)
	require.NotContains(t, string(data), "not_run", "the carried state keeps its shape")
	var run Run
	require.NoError(t, json.Unmarshal(data, &run))
	r, err := newRunner(&run)
	require.NoError(t, err)
	for i, n := range r.run.Nodes {
		require.Equal(t, nodes[i].NotRun, n.NotRun, n.ID)
	}
	require.True(t, r.run.Nodes[0].StoppedBeforeRun() && r.run.Nodes[1].StoppedBeforeRun() && r.run.Nodes[2].StoppedBeforeRun())
	require.False(t, r.run.Nodes[3].StoppedBeforeRun() || r.run.Nodes[4].StoppedBeforeRun(), "a request cut short and a call that failed are not run again")
}
