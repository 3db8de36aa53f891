package policies

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The same node visited `visits` times within `within` is a loop, at the
// visit that makes the count; visits spread wider, of other nodes, or
// before a report do not count.
func TestVisitWindow(t *testing.T) {
	t0 := time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)
	type visit struct {
		node string
		at   time.Duration // after t0
	}
	cases := []struct {
		name   string
		visits []visit
		want   []Loop // reports, in order
	}{
		{
			name:   "three quick visits",
			visits: []visit{{"A", 0}, {"A", time.Second}, {"A", 2 * time.Second}},
			want:   []Loop{{Kind: LoopTimeWindow, Period: 1, Repeats: 3, At: 2}},
		},
		{
			name:   "other nodes in between: the period is the path back",
			visits: []visit{{"A", 0}, {"B", time.Second}, {"A", 2 * time.Second}, {"C", 3 * time.Second}, {"B", 4 * time.Second}, {"A", 5 * time.Second}},
			want:   []Loop{{Kind: LoopTimeWindow, Period: 3, Repeats: 3, At: 5}},
		},
		{
			name:   "spread wider than within",
			visits: []visit{{"A", 0}, {"A", 6 * time.Second}, {"A", 12 * time.Second}, {"A", 18 * time.Second}},
		},
		{
			name:   "exactly within counts; older visits are forgotten",
			visits: []visit{{"A", 0}, {"A", 9 * time.Second}, {"A", 11 * time.Second}, {"A", 19 * time.Second}},
			want:   []Loop{{Kind: LoopTimeWindow, Period: 1, Repeats: 3, At: 3}},
		},
		{
			name:   "after a report, three new visits",
			visits: []visit{{"A", 0}, {"A", 1}, {"A", 2}, {"A", 3}, {"A", 4}, {"A", 5}},
			want:   []Loop{{Kind: LoopTimeWindow, Period: 1, Repeats: 3, At: 2}, {Kind: LoopTimeWindow, Period: 1, Repeats: 3, At: 5}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := NewVisitWindow(3, 10*time.Second)
			var got []Loop
			for i, vis := range tc.visits {
				if i == len(tc.visits)/2 { // the run state goes through JSON (continue-as-new)
					b, err := json.Marshal(v)
					require.NoError(t, err)
					v = &VisitWindow{}
					require.NoError(t, json.Unmarshal(b, v))
				}
				if l := v.Observe(vis.node, i, t0.Add(vis.at), 64); l != nil {
					got = append(got, *l)
				}
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// The period never exceeds what the caller holds, and is at least 1.
func TestVisitWindowPeriodBounds(t *testing.T) {
	t0 := time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)
	v := NewVisitWindow(2, time.Minute)
	require.Nil(t, v.Observe("A", 0, t0, 4))
	require.Equal(t, 4, v.Observe("A", 100, t0.Add(time.Second), 4).Period)
	require.Nil(t, v.Observe("A", 7, t0, 4))
	require.Equal(t, 1, v.Observe("A", 7, t0, 4).Period, "two visits at one event index (a reply's calls)")
	require.Equal(t, 2, NewVisitWindow(1, time.Minute).Visits, "one visit is never a loop")
}
