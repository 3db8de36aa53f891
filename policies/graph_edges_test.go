package policies

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

func TestEdgeIDAndExcluded(t *testing.T) {
	require.Equal(t, "a->b", EdgeID("a", "b"))
	cases := []struct {
		name     string
		edge     config.GraphEdge
		excluded []string
		want     bool
	}{
		{"none excluded", config.GraphEdge{From: "a", To: "b"}, nil, false},
		{"excluded", config.GraphEdge{From: "a", To: "b", When: "ok"}, []string{"x->y", "a->b"}, true},
		{"the other direction", config.GraphEdge{From: "b", To: "a"}, []string{"a->b"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Excluded(tc.edge, tc.excluded))
		})
	}
}

func TestOffCycleEdge(t *testing.T) {
	edges := []config.GraphEdge{
		{From: "a", To: "b"}, {From: "a", To: "c"}, {From: "a", To: "d"}, {From: "x", To: "e"},
	}
	cases := []struct {
		name     string
		at       string
		cycle    map[string]bool
		excluded []string
		visits   map[string]int
		to       string
		ok       bool
	}{
		{"ties go by edge order", "a", nil, nil, nil, "b", true},
		{"cycle nodes are left out", "a", map[string]bool{"a": true, "b": true}, nil, nil, "c", true},
		{"least visited first", "a", map[string]bool{"b": true}, nil, map[string]int{"c": 3, "d": 1}, "d", true},
		{"equal visits: edge order", "a", nil, nil, map[string]int{"b": 2, "c": 1, "d": 1}, "c", true},
		{"excluded edges are left out", "a", map[string]bool{"b": true}, []string{"a->c"}, map[string]int{"d": 5}, "d", true},
		{"every target in the cycle", "a", map[string]bool{"b": true, "c": true, "d": true}, nil, nil, "", false},
		{"no outgoing edge", "e", nil, nil, nil, "", false},
		{"only edges of other nodes", "x", map[string]bool{"e": true}, nil, nil, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			to, ok := OffCycleEdge(tc.at, edges, tc.cycle, tc.excluded, tc.visits)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.to, to)
		})
	}
}

func TestEdgeAround(t *testing.T) {
	edges := []config.GraphEdge{{From: "s", To: "loop"}, {From: "s", To: "other", When: "!ok"}, {From: "t", To: "loop"}}
	cases := []struct {
		name          string
		before, first string
		excluded      []string
		want          bool
	}{
		{"another way out", "s", "loop", nil, true},
		{"the other way is excluded", "s", "loop", []string{"s->other"}, false},
		{"only the edge into the loop", "t", "loop", nil, false},
		{"the edge into the loop excluded, no other", "t", "loop", []string{"t->loop"}, false},
		{"any target but first", "s", "other", []string{"s->other"}, true},
		{"no edges from the node", "loop", "s", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, EdgeAround(tc.before, tc.first, edges, tc.excluded))
		})
	}
}

func TestNextEdge(t *testing.T) {
	edges := []config.GraphEdge{
		{From: "a", To: "fix", When: "!ok"}, // 0
		{From: "a", To: "done", When: "ok"}, // 1
		{From: "a", To: "fallback"},         // 2
		{From: "b", To: "c", When: "bad"},   // 3
		{From: "d", To: "e", When: "boom"},  // 4
		{From: "f", To: "g", When: "ok"},    // 5
	}
	// holds evaluates "ok" and "!ok" against the outcome; "bad" fails to
	// compile, "boom" fails to run (as the caller formats it).
	holds := func(ok bool, asked *[]int) func(int, config.GraphEdge) (bool, error) {
		return func(i int, e config.GraphEdge) (bool, error) {
			*asked = append(*asked, i)
			require.Equal(t, edges[i], e)
			switch e.When {
			case "ok":
				return ok, nil
			case "!ok":
				return !ok, nil
			case "bad":
				return false, errors.New("unexpected token")
			default:
				return false, fmt.Errorf("condition %q: %v", e.When, errors.New("division by zero"))
			}
		}
	}
	cases := []struct {
		name     string
		at       string
		excluded []string
		ok       bool
		errText  string
		to       string
		err      string
		asked    []int
	}{
		{"first condition that holds", "a", nil, false, "x", "fix", "", []int{0}},
		{"conditions in edge order", "a", nil, true, "", "done", "", []int{0, 1}},
		{"an excluded edge is skipped", "a", []string{"a->done"}, true, "", "fallback", "", []int{0}},
		{"an edge without condition holds", "a", []string{"a->fix", "a->done"}, true, "", "fallback", "", nil},
		{"compile error", "b", nil, true, "", "", "edge b -> c: unexpected token", []int{3}},
		{"run error", "d", nil, true, "", "", `edge d -> e: condition "boom": division by zero`, []int{4}},
		{"no edge applies", "f", nil, false, `tool "x" failed`, "", `no edge from graph node f applies (ok=false, error="tool \"x\" failed")`, []int{5}},
		{"all edges excluded", "a", []string{"a->fix", "a->done", "a->fallback"}, true, "", "", `no edge from graph node a applies (ok=true, error="")`, nil},
		{"a node without edges", "zzz", nil, true, "", "", `no edge from graph node zzz applies (ok=true, error="")`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var asked []int
			to, err := NextEdge(tc.at, edges, tc.excluded, tc.ok, tc.errText, holds(tc.ok, &asked))
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tc.to, to)
			require.Equal(t, tc.asked, asked, "conditions evaluated")
		})
	}
}
