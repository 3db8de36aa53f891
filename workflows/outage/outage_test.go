package outage

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

// A run carries when it began to wait out each tool; the first wait's
// start stays until the tool answers again, and none is left out of the
// run's JSON.
func TestSinceBeginsOnceAndRoundTrips(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	var s Since
	require.True(t, s.IsZero())
	require.Equal(t, t0, s.Begin("search", t0))
	require.Equal(t, t0, s.Begin("search", t0.Add(time.Minute)), "a wait already begun keeps its start")
	b, err := json.Marshal(struct {
		Outages Since `json:"outages,omitzero"`
	}{s})
	require.NoError(t, err)
	require.JSONEq(t, `{"outages":{"search":"2026-12-07T10:00:00Z"}}`, string(b))
	var back struct {
		Outages Since `json:"outages,omitzero"`
	}
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, t0, back.Outages.Begin("search", t0.Add(time.Hour)))
	back.Outages.End("search")
	require.True(t, back.Outages.IsZero())
	b, err = json.Marshal(back)
	require.NoError(t, err)
	require.JSONEq(t, `{}`, string(b))
}

// The status shows the first call parked; the last one taken off says so.
func TestParkedShowsTheFirstCall(t *testing.T) {
	var p Parked
	require.Nil(t, p.Status())
	require.True(t, p.Park("n3", signals.OutageStatus{Of: "search"}))
	require.False(t, p.Park("n4", signals.OutageStatus{Of: "book"}))
	require.Equal(t, "search", p.Status().Of)
	require.False(t, p.Unpark("n3"))
	require.Equal(t, "book", p.Status().Of)
	require.True(t, p.Unpark("n4"))
	require.Nil(t, p.Status())
}
