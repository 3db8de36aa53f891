package policies

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

// The graphs of the away walk's table: the seed's (A -> B -> C -> A,
// C -> D -> E), the same with B's failures routed back to A, one whose
// only way from X goes back into the loop, and one with two loops.
var (
	seedEdges = []config.GraphEdge{
		{From: "A", To: "B"}, {From: "B", To: "C"}, {From: "C", To: "A"}, {From: "C", To: "D"}, {From: "D", To: "E"},
	}
	routeBackEdges = []config.GraphEdge{
		{From: "A", To: "B"}, {From: "B", To: "C", When: "ok"}, {From: "B", To: "A", When: "!ok"},
		{From: "C", To: "A"}, {From: "C", To: "D"}, {From: "D", To: "E"},
	}
	throughLoopEdges = []config.GraphEdge{
		{From: "A", To: "B"}, {From: "B", To: "A"}, {From: "B", To: "X"}, {From: "X", To: "A"}, {From: "A", To: "E"},
	}
	twoLoopEdges = []config.GraphEdge{
		{From: "A", To: "B"}, {From: "B", To: "A"}, {From: "B", To: "C"}, {From: "C", To: "D"}, {From: "D", To: "C"}, {From: "D", To: "E"},
	}
)

// holdsWith evaluates the table's conditions: "ok" and "!ok" by ok,
// "broken" fails to evaluate.
func holdsWith(ok bool) func(int, config.GraphEdge) (bool, error) {
	return func(_ int, e config.GraphEdge) (bool, error) {
		switch e.When {
		case "ok":
			return ok, nil
		case "!ok":
			return !ok, nil
		case "broken":
			return false, errors.New("cannot evaluate")
		}
		return false, errors.New("unknown condition " + e.When)
	}
}

func TestAwayEdge(t *testing.T) {
	ab, abc, abcd := []string{"A", "B"}, []string{"A", "B", "C"}, []string{"A", "B", "C", "D"}
	withF := append(append([]config.GraphEdge{}, seedEdges...), config.GraphEdge{From: "C", To: "F"})
	broken := []config.GraphEdge{{From: "C", To: "A"}, {From: "C", To: "D", When: "broken"}, {From: "C", To: "F"}}
	cases := []struct {
		name     string
		at       string
		edges    []config.GraphEdge
		region   []string
		excluded []string
		visits   map[string]int
		ok       bool // the visit's outcome, for the conditions
		want     string
		found    bool
	}{
		{"seed graph: C's first edge goes back into the region, C -> D does not", "C", seedEdges, ab, nil, nil, true, "D", true},
		{"seed graph: the region of both loops", "C", seedEdges, abc, nil, nil, true, "D", true},
		{"route-back graph: out of A <-> B, C -> D", "C", routeBackEdges, ab, nil, map[string]int{"A": 9, "C": 1}, true, "D", true},
		{"route-back graph: B failed, its only edge that holds re-enters", "B", routeBackEdges, ab, nil, nil, false, "", false},
		{"route-back graph: B succeeded, B -> C leaves", "B", routeBackEdges, ab, nil, nil, true, "C", true},
		{"only way out through the loop: X re-enters", "X", throughLoopEdges, ab, nil, nil, true, "", false},
		{"only way out through the loop: then A leaves by A -> E", "A", throughLoopEdges, ab, nil, nil, true, "E", true},
		{"two loops: out of C <-> D at D", "D", twoLoopEdges, abcd, nil, nil, true, "E", true},
		{"two loops: out of A <-> B at B, into the other loop's node C", "B", twoLoopEdges, ab, nil, nil, true, "C", true},
		{"least visited target first", "C", withF, ab, nil, map[string]int{"D": 2, "F": 1}, true, "F", true},
		{"equal visits: edge order", "C", withF, ab, nil, map[string]int{"D": 1, "F": 1}, true, "D", true},
		{"excluded edges are left out", "C", withF, ab, []string{"C->D"}, nil, true, "F", true},
		{"every way out excluded", "C", seedEdges, ab, []string{"C->D"}, nil, true, "", false},
		{"a condition that cannot be evaluated is not a way", "C", broken, ab, nil, nil, true, "F", true},
		{"no region: the least visited edge", "C", seedEdges, nil, nil, map[string]int{"A": 3}, true, "D", true},
		{"a node without edges", "E", seedEdges, ab, nil, nil, true, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, found := AwayEdge(tc.at, tc.edges, tc.excluded, tc.region, tc.visits, holdsWith(tc.ok))
			require.Equal(t, tc.found, found)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestOffRegionExit(t *testing.T) {
	ab := map[string]bool{"A": true, "B": true}
	cases := []struct {
		name   string
		cycle  map[string]bool
		region []string
		edges  []config.GraphEdge
		visits map[string]int
		want   CycleExit
		ok     bool
	}{
		{"region inside the cycle: as OffCycleExit", ab, []string{"A", "B"}, twoLoopEdges, nil, CycleExit{"B", "C"}, true},
		{"a target outside the region before a less visited one inside it", ab, []string{"A", "B", "C"},
			append(append([]config.GraphEdge{}, twoLoopEdges...), config.GraphEdge{From: "A", To: "F"}), map[string]int{"F": 4}, CycleExit{"A", "F"}, true},
		{"every target in the region: the least visited", ab, []string{"A", "B", "C", "X"},
			[]config.GraphEdge{{From: "A", To: "X"}, {From: "B", To: "C"}}, map[string]int{"X": 2, "C": 1}, CycleExit{"B", "C"}, true},
		{"nothing leaves the cycle", ab, []string{"A", "B"}, []config.GraphEdge{{From: "A", To: "B"}, {From: "B", To: "A"}}, nil, CycleExit{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := OffRegionExit(tc.cycle, tc.region, tc.edges, nil, tc.visits)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, got)
		})
	}
	// With no region beyond the cycle it answers what OffCycleExit does.
	abc := map[string]bool{"A": true, "B": true, "C": true}
	for _, visits := range []map[string]int{nil, {"D": 3}, {"A": 1, "D": 0}} {
		want, ok := OffCycleExit(abc, seedEdges, nil, visits)
		got, ok2 := OffRegionExit(abc, []string{"A", "B", "C"}, seedEdges, nil, visits)
		require.Equal(t, ok, ok2)
		require.Equal(t, want, got)
	}
}

func TestStruggleJoin(t *testing.T) {
	var s Struggle
	require.False(t, s.Stalled(100, 64), "no struggle, nothing stalls")
	require.True(t, s.Join([]string{"B", "A"}, 6), "the first loop starts a struggle")
	require.Equal(t, []string{"A", "B"}, s.Region)
	require.False(t, s.Stalled(69, 64))
	require.True(t, s.Stalled(70, 64), "a whole window since the loop without a new node")
	s.Fresh(20)
	require.False(t, s.Stalled(70, 64), "a new node at 20: the stall counts from there")
	require.True(t, s.Stalled(84, 64))
	require.False(t, s.Stalled(3, 64), "a detector started afresh counts from itself")
	require.False(t, s.Join([]string{"C", "A", "B"}, 25), "A <-> B, then A -> B -> C -> A: one struggle")
	require.Equal(t, []string{"A", "B", "C"}, s.Region)
	require.False(t, s.Stalled(70, 64), "the window counts from the latest loop")
	require.False(t, s.Stalled(1000, 0), "no window, no stall")
	s.Explore()
	require.False(t, s.Join([]string{"X", "Y"}, 30), "away after explore: a disjoint loop is where explore led, and joins")
	require.Equal(t, []string{"A", "B", "C", "X", "Y"}, s.Region)
	require.True(t, s.Away, "climbing on keeps the walk away")
	s.Away = false
	require.True(t, s.Join([]string{"P", "Q"}, 40), "not away: a loop sharing no node starts a new struggle")
	require.Equal(t, []string{"P", "Q"}, s.Region)
	s.End()
	require.Equal(t, Struggle{}, s)
	require.False(t, s.Stalled(1000, 64), "real progress ended it")
	require.True(t, s.Join(nil, 50), "a loop without graph nodes starts a struggle of its own")
}

func TestRealProgress(t *testing.T) {
	cases := []struct {
		name         string
		node, from   string
		visitsBefore int
		end          bool
		want         bool
	}{
		{"a new node reached from outside the region", "D", "C", 0, false, true},
		{"a new node one step out of the region (C after a retry, or explore's exit)", "C", "B", 0, false, false},
		{"a node seen before", "D", "C", 2, false, false},
		{"a new node with nothing before it", "D", "", 0, false, true},
		{"an end node", "E", "A", 3, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Struggle{Region: []string{"A", "B"}}
			require.Equal(t, tc.want, s.RealProgress(tc.node, tc.from, tc.visitsBefore, tc.end))
		})
	}
}
