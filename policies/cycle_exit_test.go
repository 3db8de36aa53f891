package policies

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

func TestOffCycleExit(t *testing.T) {
	// The seed graph: A -> B -> C -> A, C -> D -> E, and a second way out
	// of the cycle at A (A -> F) listed after C's.
	seed := []config.GraphEdge{
		{From: "A", To: "B"}, {From: "B", To: "C"}, {From: "C", To: "A"}, {From: "C", To: "D"}, {From: "D", To: "E"},
	}
	twoExits := append(append([]config.GraphEdge{}, seed...), config.GraphEdge{From: "A", To: "F"})
	abc := map[string]bool{"A": true, "B": true, "C": true}
	cases := []struct {
		name     string
		cycle    map[string]bool
		edges    []config.GraphEdge
		excluded []string
		visits   map[string]int
		want     CycleExit
		ok       bool
	}{
		{"the exit is at another node of the cycle", abc, seed, nil, map[string]int{"A": 5, "B": 5, "C": 4}, CycleExit{"C", "D"}, true},
		{"ties go by edge order", abc, twoExits, nil, nil, CycleExit{"C", "D"}, true},
		{"least visited target first", abc, twoExits, nil, map[string]int{"D": 1}, CycleExit{"A", "F"}, true},
		{"equal visits: edge order", abc, twoExits, nil, map[string]int{"D": 2, "F": 2}, CycleExit{"C", "D"}, true},
		{"excluded edges are left out", abc, twoExits, []string{"C->D"}, nil, CycleExit{"A", "F"}, true},
		{"every exit excluded", abc, seed, []string{"C->D"}, nil, CycleExit{}, false},
		{"edges inside the cycle do not leave it", map[string]bool{"A": true, "B": true, "C": true, "D": true, "E": true}, seed, nil, nil, CycleExit{}, false},
		{"a cycle of one node", map[string]bool{"D": true}, seed, nil, nil, CycleExit{"D", "E"}, true},
		{"no cycle", map[string]bool{}, seed, nil, nil, CycleExit{}, false},
		{"nil cycle", nil, seed, nil, nil, CycleExit{}, false},
		{"no edges", abc, nil, nil, nil, CycleExit{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := OffCycleExit(tc.cycle, tc.edges, tc.excluded, tc.visits)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, got)
		})
	}
}

// At the node where the loop was seen, OffCycleExit answers what
// OffCycleEdge answers whenever that node has a way out and it is the
// least visited: the new rule widens the old one, it does not change it.
func TestOffCycleExitWidensOffCycleEdge(t *testing.T) {
	edges := []config.GraphEdge{{From: "a", To: "b"}, {From: "b", To: "a"}, {From: "b", To: "x"}, {From: "b", To: "y"}}
	cycle := map[string]bool{"a": true, "b": true}
	for _, visits := range []map[string]int{nil, {"x": 2, "y": 1}, {"x": 1, "y": 1}} {
		to, ok := OffCycleEdge("b", edges, cycle, nil, visits)
		exit, ok2 := OffCycleExit(cycle, edges, nil, visits)
		require.Equal(t, ok, ok2)
		require.Equal(t, CycleExit{From: "b", To: to}, exit)
	}
}
