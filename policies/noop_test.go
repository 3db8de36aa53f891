package policies

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNoOpRepeat(t *testing.T) {
	for _, tc := range []struct {
		name             string
		repeatable       bool
		previous, result string
		want             bool
	}{
		{"same result", false, `{"ok":true,"id":"b1"}`, `{"id":"b1","ok":true}`, true},
		{"another result", false, `{"ok":true,"id":"b1"}`, `{"ok":true,"id":"b2"}`, false},
		{"repeatable tool", true, `{"ok":true}`, `{"ok":true}`, false},
		{"no earlier success", false, "", `{"ok":true}`, false},
		{"not JSON", false, `ok`, `ok`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var prev []byte
			if tc.previous != "" {
				prev = []byte(tc.previous)
			}
			require.Equal(t, tc.want, NoOpRepeat(tc.repeatable, prev, []byte(tc.result)))
		})
	}
}

func TestNoOpStreakCountsTheCallItRepeats(t *testing.T) {
	d := NewLoopDetector(64, 3)
	ok := LoopEvent{Signature: "book:ok", Key: "book"}
	noop := LoopEvent{Signature: "book:no_op", Key: "book", Failed: true, Class: string(NoOp)}
	require.Nil(t, d.Observe(ok))
	require.Nil(t, d.Observe(noop), "the second call: a streak of 2")
	loop := d.Observe(noop)
	require.NotNil(t, loop, "the third identical answer is a loop, as three identical calls always were")
	require.Equal(t, LoopNoProgress, loop.Kind)
	require.Equal(t, string(NoOp), loop.Class)
}
