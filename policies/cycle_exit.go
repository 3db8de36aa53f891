package policies

import "github.com/unstuck-dev/unstuck/config"

// CycleExit is an edge that leaves a loop's cycle: From is a node of the
// cycle, To is not.
type CycleExit struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// OffCycleExit picks, for path exploration, an edge leaving the loop's
// cycle from any node of it, not only from the node where the loop was
// seen: a loop is reported at the event that completes it, which can be
// any node of the cycle, while the way out may be at another (the seed
// graph A -> B -> C -> A leaves at C -> D, and its loop is often seen at
// A or B). The least visited target comes first (visits[to]), ties by
// edge order, so exploration tries what the run has seen least; excluded
// edges are left out. ok is false when no edge leaves the cycle.
func OffCycleExit(cycle map[string]bool, edges []config.GraphEdge, excluded []string, visits map[string]int) (exit CycleExit, ok bool) {
	least := 0
	for _, e := range edges {
		if !cycle[e.From] || cycle[e.To] || Excluded(e, excluded) {
			continue
		}
		if v := visits[e.To]; !ok || v < least {
			exit, least, ok = CycleExit{From: e.From, To: e.To}, v, true
		}
	}
	return exit, ok
}
