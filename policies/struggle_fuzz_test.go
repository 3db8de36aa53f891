package policies

import (
	"slices"
	"testing"

	"github.com/unstuck-dev/unstuck/config"
)

// Graphs drawn from bytes: each byte pair is an edge between nodes "a".."f"
// (conditions "ok" or "!ok" on some); the region, visits and the outcome
// come from the other arguments. Whatever the graph, AwayEdge answers an
// edge from `at` whose condition holds and whose target is outside the
// region, and no other edge from `at` leads outside it to a less visited
// target; OffRegionExit answers an edge leaving the cycle.
func FuzzAwayEdge(f *testing.F) {
	f.Add([]byte{0, 1, 1, 2, 2, 0, 2, 3, 3, 4}, uint8(0b011), uint8(2), []byte{5, 1, 0, 2}, true)
	f.Add([]byte{0, 1, 1, 0, 1, 5, 5, 0, 0, 4}, uint8(0b000011), uint8(5), []byte{}, false)
	f.Fuzz(func(t *testing.T, pairs []byte, regionBits, at uint8, visitCounts []byte, ok bool) {
		name := func(b byte) string { return string(rune('a' + b%6)) }
		var edges []config.GraphEdge
		for i := 0; i+1 < len(pairs) && len(edges) < 32; i += 2 {
			e := config.GraphEdge{From: name(pairs[i]), To: name(pairs[i+1])}
			switch pairs[i] / 6 % 3 {
			case 1:
				e.When = "ok"
			case 2:
				e.When = "!ok"
			}
			edges = append(edges, e)
		}
		// The cycle is the region's nodes whose bit is also set in the
		// high half of at (a subset), so exits into the region's other
		// nodes are drawn too.
		var region []string
		cycle := map[string]bool{}
		for i := range 6 {
			if regionBits&(1<<i) != 0 {
				region = append(region, name(byte(i)))
				if (at>>4)&(1<<(i%4)) != 0 {
					cycle[name(byte(i))] = true
				}
			}
		}
		visits := map[string]int{}
		for i, v := range visitCounts {
			visits[name(byte(i))] = int(v)
		}
		from := name(at)
		holds := holdsWith(ok)
		applies := func(e config.GraphEdge) bool {
			h, err := holds(0, e)
			return e.When == "" || (err == nil && h)
		}
		to, found := AwayEdge(from, edges, nil, region, visits, holds)
		outside := slices.IndexFunc(edges, func(e config.GraphEdge) bool {
			return e.From == from && applies(e) && !slices.Contains(region, e.To)
		})
		if found != (outside >= 0) {
			t.Fatalf("found %v, but an edge out of the region that holds: %v (edges %v, region %v)", found, outside >= 0, edges, region)
		}
		if found {
			if slices.Contains(region, to) {
				t.Fatalf("AwayEdge went into the region: %s", to)
			}
			for _, e := range edges {
				if e.From == from && applies(e) && !slices.Contains(region, e.To) && visits[e.To] < visits[to] {
					t.Fatalf("%s is visited %d times, %s less", to, visits[to], e.To)
				}
			}
		}
		exit, ok2 := OffRegionExit(cycle, region, edges, nil, visits)
		leaves := func(e config.GraphEdge) bool { return cycle[e.From] && !cycle[e.To] }
		if ok2 != slices.ContainsFunc(edges, leaves) {
			t.Fatalf("OffRegionExit found %v; an edge leaves the cycle %v: %v", ok2, cycle, !ok2)
		}
		if ok2 {
			if !slices.ContainsFunc(edges, func(e config.GraphEdge) bool { return leaves(e) && e.From == exit.From && e.To == exit.To }) {
				t.Fatalf("OffRegionExit answered %v, not an edge leaving the cycle %v", exit, cycle)
			}
			outside := slices.ContainsFunc(edges, func(e config.GraphEdge) bool { return leaves(e) && !slices.Contains(region, e.To) })
			if outside && slices.Contains(region, exit.To) {
				t.Fatalf("OffRegionExit went to %s in the region %v though an exit leads outside it", exit.To, region)
			}
		}
	})
}
