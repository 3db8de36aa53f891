package workflows

import (
	"testing"

	"github.com/unstuck-dev/unstuck/internal/testdouble/flakygraph"

	"github.com/unstuck-dev/unstuck/config"
)

// BenchmarkSeedGraph measures, in the test environment (activities
// mocked, time skipped), the share of 200 seeds of the seed graph that
// reach E, for each max_steps and ladder, side by side with the rules
// before explore-cycle, graph-progress and explore-region (their versions
// forced to the default). `make bench` runs it; the figures go to bench/RESULTS.md.
func BenchmarkSeedGraph(b *testing.B) {
	const seeds = 200
	type rules struct {
		name   string
		before []string // change ids forced to DefaultVersion
	}
	variants := []rules{
		{"before (neither)", []string{versionExploreCycle, versionGraphProgress, versionExploreRegion}},
		{"explore-cycle", []string{versionGraphProgress, versionExploreRegion}},
		{"explore-cycle + graph-progress", []string{versionExploreRegion}},
		{"+ explore-region", nil},
	}
	ladders := []struct {
		name  string
		rungs []string
	}{
		{"[retry, explore, stop]", []string{"retry", "explore", "stop"}},
		{"default", config.DefaultEscalation()},
	}
	for _, l := range ladders {
		b.Run("ladder "+l.name, func(b *testing.B) {
			for range b.N {
				for _, maxSteps := range []int{60, 100, 200} {
					for _, v := range variants {
						if l.name == "default" && v.before != nil {
							continue
						}
						reached, steps := 0, 0
						for seed := range seeds {
							o := runSeedGraph(b, seedGraphSpec(maxSteps, l.rungs), seed, func(h *harness) {
								for _, id := range v.before {
									h.before(id)
								}
							})
							if o.reachedE {
								reached++
								steps += o.steps
							}
						}
						b.Logf("ladder %s, max_steps %d, %s: %d of %d reached E (%.1f%%), %.1f steps on average to E",
							l.name, maxSteps, v.name, reached, seeds, 100*float64(reached)/seeds, float64(steps)/float64(max(reached, 1)))
					}
				}
			}
		})
	}
}

// BenchmarkSeedGraphRouteBack measures issue 26's scenario (flakygraph:
// the default breaker, window 64, max_steps 100, C failing 10%) over 200
// seeds in the test environment, with the seed's edges and with B's
// failures routed back to A, side by side with the rules before
// explore-region. The real server's figures, with many runs at once, are
// bench.BenchmarkRouteBack's.
func BenchmarkSeedGraphRouteBack(b *testing.B) {
	for range b.N {
		for _, routeBack := range []bool{false, true} {
			_, before := routeBackShare(b, routeBack, 200, func(h *harness) { h.before(versionExploreRegion) })
			_, now := routeBackShare(b, routeBack, 200, nil)
			b.Logf("graph %s, 200 seeds: before explore-region %s; now %s", flakygraph.Graph(routeBack), before, now)
		}
	}
}
