package edit

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKeptPrefixCutsBackToACheckpoint(t *testing.T) {
	list := []int{10, 11, 12, 13} // entries 10..13 of the run; 0..9 were dropped
	cases := []struct {
		name      string
		total     int
		kept      []int
		nowDroppd int
	}{
		{"all of them", 14, []int{10, 11, 12, 13}, 10},
		{"the first two kept", 12, []int{10, 11}, 10},
		{"exactly the dropped ones", 10, []int{}, 10},
		{"a checkpoint older than the kept entries", 6, []int{}, 6},
		{"the start", 0, []int{}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kept, dropped := keptPrefix(list, 10, tc.total)
			require.Equal(t, tc.kept, kept)
			require.Equal(t, tc.nowDroppd, dropped)
		})
	}
	kept, dropped := keptPrefix([]int{0, 1, 2}, 0, 2)
	require.Equal(t, []int{0, 1}, kept, "a run that dropped nothing cuts as before")
	require.Zero(t, dropped)
}
