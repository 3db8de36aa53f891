package policies

import (
	"fmt"
	"slices"

	"github.com/unstuck-dev/unstuck/config"
)

// EdgeID is how the run names an edge it excluded, from+"->"+to: a
// rollback excludes the edge into the loop so the walk takes another.
func EdgeID(from, to string) string { return from + "->" + to }

// Excluded reports whether e is in excluded (a list of EdgeIDs): the walk
// and the rungs skip excluded edges as if the graph did not have them.
func Excluded(e config.GraphEdge, excluded []string) bool {
	return len(excluded) > 0 && slices.Contains(excluded, EdgeID(e.From, e.To))
}

// OffCycleEdge picks, for path exploration, an outgoing edge of `at` whose
// target is not in cycle and not excluded: the least visited target first
// (visits[to]), ties by edge order, so exploration tries what the run has
// seen least. ok is false when there is none.
func OffCycleEdge(at string, edges []config.GraphEdge, cycle map[string]bool, excluded []string, visits map[string]int) (to string, ok bool) {
	least := 0
	for _, e := range edges {
		if e.From != at || cycle[e.To] || Excluded(e, excluded) {
			continue
		}
		if v := visits[e.To]; !ok || v < least {
			to, least, ok = e.To, v, true
		}
	}
	return to, ok
}

// EdgeAround reports whether node `before` has a non-excluded edge to a
// target other than `first`: a graph rollback goes back to the node before
// the loop and excludes the edge into it (before -> first), so it needs
// another way out of that node.
func EdgeAround(before, first string, edges []config.GraphEdge, excluded []string) bool {
	for _, e := range edges {
		if e.From == before && e.To != first && !Excluded(e, excluded) {
			return true
		}
	}
	return false
}

// NextEdge takes the first non-excluded edge from `at` whose condition
// holds, in edge order, and answers its target. An edge with When == ""
// always holds; otherwise holds(i, e) evaluates it (i is the index in
// edges, for a cache of compiled conditions). ok and errText are the
// visit's outcome, for the error when no edge applies.
//
// An error of holds stops the walk as fmt.Errorf("edge %s -> %s: %v",
// e.From, e.To, err): holds formats the condition part itself. To keep
// today's messages, holds returns a compile error as it is and a run
// error as fmt.Errorf("condition %q: %v", e.When, err).
func NextEdge(at string, edges []config.GraphEdge, excluded []string, ok bool, errText string, holds func(i int, e config.GraphEdge) (bool, error)) (string, error) {
	for i, e := range edges {
		if e.From != at || Excluded(e, excluded) {
			continue
		}
		if e.When == "" {
			return e.To, nil
		}
		h, err := holds(i, e)
		if err != nil {
			return "", fmt.Errorf("edge %s -> %s: %v", e.From, e.To, err)
		}
		if h {
			return e.To, nil
		}
	}
	return "", fmt.Errorf("no edge from graph node %s applies (ok=%v, error=%q)", at, ok, errText)
}
