package ladder

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// fakeRun is a run's trace, State and visits as the loop escape reads
// them.
type fakeRun struct {
	nodes  map[string]Node
	visits map[string]int
	state  string
}

func (f *fakeRun) Node(id string) (Node, bool) { n, ok := f.nodes[id]; return n, ok }
func (f *fakeRun) StateJSON() []byte           { return []byte(f.state) }
func (f *fakeRun) Visits() map[string]int      { return f.visits }

// escapeFor is an Escape over rec for an agent with rungs, whose gates
// answer 1 (the run follows every rule) and are noted in asked.
func escapeFor(rec *recorded, run *fakeRun, rungs []string, graph *config.Graph, asked *[]string) *Escape {
	spec := &config.Resolved{Agent: config.Agent{Graph: graph, Policies: config.Policies{
		Loop: config.LoopPolicy{Window: 8, Repeats: 3}, Escalation: rungs,
	}}}
	return New(Parts{
		State: &rec.State, Escalations: &rec.Escalations, EscalationsDropped: &rec.EscalationsDropped,
		DroppedRungs: &rec.DroppedRungs, ExcludedEdges: &rec.ExcludedEdges, Spec: spec, Walk: graph, Run: run,
		Version: func(_ workflow.Context, id string, _ workflow.Version) workflow.Version {
			*asked = append(*asked, id)
			return 1
		},
		Gates: Gates{GraphProgress: "graph-progress", ExploreCycle: "explore-cycle", ExploreRegion: "explore-region",
			StateHash: "state-hash", TimeWindow: "time-window", RungsByClass: "rungs-by-class",
			BoundedLists: "bounded-lists", TurnLoops: "turn-loops"},
	})
}

// A free-form run calling search the same way three times is in a loop:
// Observe reports it and lists it, Climb takes explore (a call to block),
// Block forbids that exact call, and a new turn forgets all of it.
func TestObserveFindsALoopTheLadderAnswers(t *testing.T) {
	rec, asked := &recorded{}, []string{}
	run := &fakeRun{nodes: map[string]Node{}, state: `{}`}
	e := escapeFor(rec, run, []string{policies.RungExplore, policies.RungStop}, nil, &asked)
	var loop *policies.Loop
	for i := range 3 {
		id := fmt.Sprint("n", i)
		run.nodes[id] = Node{ID: id, Call: true, Tool: "search", Args: []byte(`{"to":"PAR"}`)}
		require.Nil(t, loop, "no loop before the third call")
		loop = e.Observe(nil, "", id, policies.LoopEvent{Signature: "search PAR", Key: "search PAR"})
	}
	require.NotNil(t, loop)
	require.Len(t, rec.State.Loops, 1)
	require.Equal(t, "n2", rec.State.Loops[0].At)

	rung, s, _ := e.Climb(nil, loop, "", nil)
	require.Equal(t, policies.RungExplore, rung)
	require.Equal(t, "search", s.LoopTool)
	require.Zero(t, s.HandoffTargets, "a run that does not hand over counts no targets")
	blocked := e.Block(loop)
	require.NotEmpty(t, blocked)
	require.Len(t, rec.State.Blocked, 1, "one exact call, blocked once")
	e.RecordEscalation(nil, Escalation{At: "n3", Action: rung})
	require.Equal(t, "explore", e.RungsTried())

	rung, _, _ = e.Climb(nil, loop, "", nil)
	require.Equal(t, policies.RungStop, rung, "the next loop climbs on")

	asked = nil
	e.FreshTurn(nil)
	require.Equal(t, []string{"turn-loops"}, asked)
	require.Empty(t, rec.State.Blocked, "a new turn may need the call")
	require.Zero(t, rec.State.Ladder.Next)
	asked = nil
	e.FreshTurn(nil)
	require.Empty(t, asked, "nothing to forget: the gate is not asked")
}

// A rollback in a graph goes back to the event before the loop and
// excludes the edge into it, once.
func TestRollBackExcludesTheEdgeIntoTheLoop(t *testing.T) {
	rec, asked := &recorded{}, []string{}
	rec.State.Events = []policies.EventRef{{Where: "A", NodeID: "n1"}, {Where: "B", NodeID: "n2"}, {Where: "C", NodeID: "n3"}, {Where: "B", NodeID: "n4"}, {Where: "C", NodeID: "n5"}}
	e := escapeFor(rec, &fakeRun{}, []string{policies.RungRollback}, &config.Graph{}, &asked)
	loop := &policies.Loop{Period: 2, Repeats: 2, At: 4}
	first, before, edge := e.RollBack(loop)
	require.Equal(t, "n2", first.NodeID)
	require.Equal(t, "A", before.Where)
	require.Equal(t, policies.EdgeID("A", "B"), edge)
	require.Len(t, rec.State.Events, 1, "the loop's events are forgotten")
	rec.State.Events = append(rec.State.Events, policies.EventRef{Where: "B", NodeID: "n6"}, policies.EventRef{Where: "C", NodeID: "n7"})
	e.RollBack(&policies.Loop{Period: 2, Repeats: 1, At: 2})
	require.Equal(t, []string{edge}, rec.ExcludedEdges, "an edge is excluded once")
	require.Empty(t, asked, "a rollback asks no gate")
}
