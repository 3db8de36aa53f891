package policies

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOverflow(t *testing.T) {
	cases := []struct {
		name         string
		length, keep int
		want         int
	}{
		{"empty", 0, 64, 0},
		{"under the bound", 10, 64, 0},
		{"at the bound", 64, 64, 0},
		{"one over", 65, 64, 1},
		{"far over", 200, 64, 136},
		{"keep nothing", 3, 0, 3},
		{"a negative bound keeps nothing", 3, -1, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Overflow(tc.length, tc.keep))
		})
	}
}

func TestTallyRungs(t *testing.T) {
	cases := []struct {
		name    string
		counts  map[string]int
		dropped []string
		want    map[string]int
	}{
		{"nothing dropped keeps nil", nil, nil, nil},
		{"first drop", nil, []string{RungRetry, RungRetry, RungExplore}, map[string]int{RungRetry: 2, RungExplore: 1}},
		{"adds to earlier counts", map[string]int{RungRetry: 3}, []string{RungRetry, RungHuman}, map[string]int{RungRetry: 4, RungHuman: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, TallyRungs(tc.counts, tc.dropped))
		})
	}
}

// The count a rung decision reads is the same, kept or dropped.
func TestRungCountWithDroppedRungs(t *testing.T) {
	all := []string{RungRetry, RungExplore, RungRetry, RungRetry, RungHuman}
	for drop := range len(all) + 1 {
		counts := TallyRungs(nil, all[:drop])
		require.Equal(t, RungCount(all, RungRetry), RungCount(all[drop:], RungRetry)+counts[RungRetry], "drop %d", drop)
	}
}
