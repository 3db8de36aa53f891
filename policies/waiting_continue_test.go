package policies

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestContinueWhileWaiting(t *testing.T) {
	waiting := WaitView{ContinueAsNewSuggested: true, Waiting: true}
	with := func(change func(*WaitView)) WaitView { v := waiting; change(&v); return v }
	cases := []struct {
		name string
		v    WaitView
		want bool
	}{
		{"suggested while waiting", waiting, true},
		{"not suggested", with(func(v *WaitView) { v.ContinueAsNewSuggested = false }), false},
		{"not waiting: the step loop continues as new between steps", with(func(v *WaitView) { v.Waiting = false }), false},
		{"a reply still streaming", with(func(v *WaitView) { v.Streaming = true }), false},
		{"an edit waits: it continues as new itself", with(func(v *WaitView) { v.Interrupting = true }), false},
		{"already closing", with(func(v *WaitView) { v.Closing = true }), false},
		{"nothing", WaitView{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, ContinueWhileWaiting(tc.v))
		})
	}
}

func TestWaitLeft(t *testing.T) {
	cases := []struct {
		name            string
		timeout, waited time.Duration
		left            time.Duration
		expired         bool
	}{
		{"a fresh wait", time.Hour, 0, time.Hour, false},
		{"carried after a while", time.Hour, 20 * time.Minute, 40 * time.Minute, false},
		{"carried past its deadline", time.Hour, 2 * time.Hour, -time.Hour, true},
		{"exactly at the deadline", time.Hour, time.Hour, 0, true},
		{"a clock that went back counts as no wait", time.Hour, -time.Minute, time.Hour, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			left, expired := WaitLeft(tc.timeout, tc.waited)
			require.Equal(t, tc.left, left)
			require.Equal(t, tc.expired, expired)
		})
	}
}
