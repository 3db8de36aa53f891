package policies

import (
	"slices"

	"github.com/unstuck-dev/unstuck/config"
)

// Struggle is what a graph run remembers of the loops it met since it
// last made real progress: the graph nodes of their cycles (the region)
// and whether an explore rung sent the walk out of them (Away).
//
// Loops over overlapping nodes are one struggle: A <-> B while B fails,
// then A -> B -> C -> A while it succeeds, is the same trouble at B, so
// the ladder climbs on instead of starting again at its bottom rung
// (a success at C between the two loops is not progress). A loop that
// shares no node with the region starts a new struggle, unless the walk
// is still away after explore: then it is where explore led, and joins.
// Real progress (RealProgress) ends the struggle.
//
// It lives in the run state (JSON round-trips, no map), so it survives
// continue-as-new.
type Struggle struct {
	// Region: the graph nodes of the struggle's loops, sorted, each once.
	Region []string `json:"region,omitempty"`
	// Away: an explore rung left the region; until real progress the walk
	// keeps away from it (AwayEdge).
	Away bool `json:"away,omitempty"`
	// Since is the loop detector's event count (LoopDetector.Seen) at the
	// struggle's latest loop or the latest visit of a node the run had
	// not visited before, whichever came last: Stalled counts from it.
	Since int `json:"since,omitempty"`
}

// LoopStalled: a struggle went a whole loop window without real progress
// or another loop (Struggle.Stalled).
const LoopStalled = "stalled"

// Stalled reports whether the struggle went `window` events (seen is
// the detector's count) since its latest loop without reaching a node
// the run had not visited before. A walk going round the region need not
// repeat one cycle exactly: B's outcome is a fresh draw each round, so
// A Bx A B C A Bx A B Cx ... may never give three equal rounds in a row,
// and the run would spend its steps there. A whole window of it is no
// progress, and the ladder climbs on as at a loop. A count behind Since
// (a detector started afresh) counts from itself.
func (s Struggle) Stalled(seen, window int) bool {
	return len(s.Region) > 0 && window > 0 && seen-min(s.Since, seen) >= window
}

// Fresh notes a visit of a node the run had not visited before, when the
// detector had seen `seen` events: the walk is not going round, so the
// stall counts afresh (even when the visit is not yet real progress).
func (s *Struggle) Fresh(seen int) { s.Since = max(s.Since, seen) }

// Overlaps reports whether a loop over cycle (its graph nodes) shares a
// node with the region: the same struggle, so the ladder climbs on.
func (s Struggle) Overlaps(cycle []string) bool {
	for _, n := range cycle {
		if slices.Contains(s.Region, n) {
			return true
		}
	}
	return false
}

// Join takes a loop, seen when the detector had seen `seen` events, into
// the struggle: an overlapping loop widens the region, and so does any
// loop while the walk is away after explore (explore led there: two
// disjoint loops would otherwise restart the ladder in turn for ever);
// any other loop starts a new struggle with its nodes alone. It reports
// whether the loop started a new struggle (the ladder goes back to its
// bottom rung).
func (s *Struggle) Join(cycle []string, seen int) (started bool) {
	s.Since = seen
	if !s.Away && !s.Overlaps(cycle) {
		s.Region = nil
		started = true
	}
	for _, n := range cycle {
		if !slices.Contains(s.Region, n) {
			s.Region = append(s.Region, n)
		}
	}
	slices.Sort(s.Region)
	return started
}

// End forgets the struggle: the run made real progress.
func (s *Struggle) End() { *s = Struggle{} }

// Explore records that an explore rung sent the walk away from the
// region: until real progress the walk keeps away from it.
func (s *Struggle) Explore() { s.Away = true }

// RealProgress reports whether a visit of node, reached from the node
// `from` ("" when none is known), is real progress off the struggle: an
// end node, or a node the run had not visited before (visitsBefore 0)
// reached from outside the region. A new node one step out of the region
// is not yet: C, passed for the first time on the way round
// A -> B -> C -> A after a retry, or the exit explore went to, from which
// the walk may still only lead back. The next new node shows the run got
// out.
func (s Struggle) RealProgress(node, from string, visitsBefore int, end bool) bool {
	return end || (visitsBefore == 0 && !slices.Contains(s.Region, from))
}

// OffRegionExit is OffCycleExit for a run in a struggle: among the edges
// leaving the loop's cycle, one whose target is also outside the region
// (the nodes of the struggle's other loops) comes first, then the least
// visited target, ties by edge order. With a region inside the cycle it
// answers what OffCycleExit answers. ok is false when no edge leaves the
// cycle.
func OffRegionExit(cycle map[string]bool, region []string, edges []config.GraphEdge, excluded []string, visits map[string]int) (exit CycleExit, ok bool) {
	var best edgeRank
	for _, e := range edges {
		if !cycle[e.From] || cycle[e.To] || Excluded(e, excluded) {
			continue
		}
		if r := rankEdge(e.To, region, visits); !ok || r.before(best) {
			exit, best, ok = CycleExit{From: e.From, To: e.To}, r, true
		}
	}
	return exit, ok
}

// AwayEdge is the walk's next edge while it keeps away from the region
// (after an explore rung, until real progress, where the edge it would
// take leads back into the region): among the edges from at
// that are not excluded and whose condition holds, the one whose target
// is outside the region, the least visited first, ties by edge order.
// ok is false when every such edge leads into the region: the walk then
// takes its usual edge (NextEdge) and re-enters, as there is no other
// way. An edge whose condition does not hold is not a way out (its `when`
// says what its target needs), and one whose condition cannot be
// evaluated is left to NextEdge, which reports the error.
func AwayEdge(at string, edges []config.GraphEdge, excluded, region []string, visits map[string]int, holds func(i int, e config.GraphEdge) (bool, error)) (to string, ok bool) {
	var best edgeRank
	for i, e := range edges {
		if e.From != at || Excluded(e, excluded) || slices.Contains(region, e.To) {
			continue
		}
		if e.When != "" {
			if h, err := holds(i, e); err != nil || !h {
				continue
			}
		}
		if r := rankEdge(e.To, region, visits); !ok || r.before(best) {
			to, best, ok = e.To, r, true
		}
	}
	return to, ok
}

// edgeRank orders the targets exploration prefers: outside the region
// first, then the least visited; equal ranks keep edge order.
type edgeRank struct {
	inRegion bool
	visits   int
}

func rankEdge(to string, region []string, visits map[string]int) edgeRank {
	return edgeRank{inRegion: slices.Contains(region, to), visits: visits[to]}
}

func (r edgeRank) before(o edgeRank) bool {
	if r.inRegion != o.inRegion {
		return !r.inRegion
	}
	return r.visits < o.visits
}
