package policies

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFitMessages(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sizes     []int
		protected []bool
		budget    int
		want      []int
	}{
		{"fits: nothing cut", []int{100, 200, 300}, []bool{true, false, true}, 600, []int{100, 200, 300}},
		{"oldest observation cut just enough", []int{100, 1000, 1000, 100}, []bool{true, false, false, true}, 2000, []int{100, 600, 1000, 100}},
		{"oldest cut whole, then the next", []int{100, 1000, 1000, 100}, []bool{true, false, false, true}, 1000, []int{100, 0, 400, 100}},
		{"protected never cut while others can be", []int{5000, 1000, 100}, []bool{true, false, true}, 5400, []int{5000, 100, 100}},
		{"protected share what is left", []int{100, 1000, 3000, 3000}, []bool{true, false, true, true}, 2000, []int{100, 0, 400, 400}},
		{"empty", nil, nil, 10, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FitMessages(tc.sizes, tc.protected, tc.budget)
			require.Equal(t, tc.want, got)
			if len(got) == 0 {
				return
			}
			total := 0
			for i, k := range got {
				total += k
				if k < tc.sizes[i] {
					total += ClipMarkerBytes
				}
			}
			require.LessOrEqual(t, total, max(tc.budget, 0)+ClipMarkerBytes*len(got), "roughly within the budget")
		})
	}
}
