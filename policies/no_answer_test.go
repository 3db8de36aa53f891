package policies

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAnswersNothing(t *testing.T) {
	cases := []struct {
		name, content, refusal, finish string
		want                           bool
		sig, class, told               string
	}{
		{name: "content is an answer", content: "done", finish: "stop"},
		{name: "JSON content is an answer", content: `{"ok":true}`, finish: "stop"},
		{name: "empty", content: "", finish: "stop", want: true, sig: "reply:empty", class: "error", told: `the reply was empty (finish_reason "stop")`},
		{name: "blank", content: " \n\t", finish: "length", want: true, sig: "reply:empty", class: "error", told: `finish_reason "length"`},
		{name: "filtered", finish: "content_filter", want: true, sig: "reply:empty", class: "error", told: `"content_filter"`},
		{name: "refusal", refusal: "I can't help with that.", finish: "stop", want: true, sig: "reply:refused", class: "refused", told: `a refusal ("I can't help with that.")`},
		{name: "refusal beside content", content: "partial", refusal: "no", want: true, sig: "reply:refused", class: "refused", told: `("no")`},
		{name: "long refusal clipped", refusal: strings.Repeat("é", 300), want: true, sig: "reply:refused", class: "refused", told: `..."`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			na, ok := AnswersNothing(c.content, c.refusal, c.finish)
			require.Equal(t, c.want, ok)
			if !ok {
				return
			}
			require.Equal(t, c.sig, na.Event.Signature)
			require.Equal(t, c.sig, na.Event.Key, "every reply of a kind has one key, so repeats are a no-progress loop")
			require.True(t, na.Event.Failed)
			require.Equal(t, c.class, na.Event.Class)
			require.Contains(t, na.Told, c.told)
			require.Less(t, len(na.Told), 600, "a long refusal is not repeated whole")
		})
	}
}

// Replies that answer nothing, one after another, are a loop the
// detector reports.
func TestRepliesThatAnswerNothingMakeALoop(t *testing.T) {
	d := NewLoopDetector(16, 3)
	na, _ := AnswersNothing("", "", "stop")
	var loop *Loop
	for i := 0; i < 3 && loop == nil; i++ {
		loop = d.Observe(na.Event)
		if i < 2 {
			require.Nil(t, loop, "reply %d", i+1)
		}
	}
	require.NotNil(t, loop)
	require.Equal(t, LoopNoProgress, loop.Kind)
	require.Equal(t, "error", loop.Class)
}
