package signals

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An outage is described in UTC whatever the status's zone, and without
// what cannot be said: no next probe, a probe that is due, a clock behind
// the worker's.
func TestOutageDescribe(t *testing.T) {
	since := time.Date(2026, 12, 7, 10, 30, 0, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		name string
		o    OutageStatus
		now  time.Time
		want string
	}{
		{"a probe to come", OutageStatus{Of: "search", Since: since, NextProbe: since.Add(90 * time.Second)}, since.Add(time.Minute),
			"search down since 2026-12-07T09:30:00Z (1m0s), next probe 2026-12-07T09:31:30Z (in 30s)"},
		{"a probe that is due", OutageStatus{Of: "search", Since: since, NextProbe: since.Add(time.Minute)}, since.Add(2 * time.Hour),
			"search down since 2026-12-07T09:30:00Z (2h0m0s), next probe 2026-12-07T09:31:00Z"},
		{"no next probe", OutageStatus{Of: "search", Since: since}, since.Add(1500 * time.Millisecond),
			"search down since 2026-12-07T09:30:00Z (2s)"},
		{"a clock behind the worker's", OutageStatus{Of: "search", Since: since, NextProbe: since.Add(time.Minute)}, since.Add(-time.Minute),
			"search down since 2026-12-07T09:30:00Z (0s), next probe 2026-12-07T09:31:00Z (in 2m0s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.o.Describe(tc.now))
		})
	}
}
