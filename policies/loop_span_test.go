package policies

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// refs builds events at the graph nodes named by where, node ids n0, n1...
func refs(where ...string) []EventRef {
	out := make([]EventRef, len(where))
	for i, w := range where {
		out[i] = EventRef{Where: w, NodeID: "n" + string(rune('0'+i))}
	}
	return out
}

func TestAppendEvent(t *testing.T) {
	ev := EventRef{Where: "x", NodeID: "new"}
	cases := []struct {
		name   string
		events []EventRef
		window int
		want   []EventRef
	}{
		{"into nothing", nil, 3, []EventRef{ev}},
		{"under the window", refs("a"), 3, append(refs("a"), ev)},
		{"up to the window", refs("a", "b"), 3, append(refs("a", "b"), ev)},
		{"over the window: the oldest goes", refs("a", "b", "c"), 3, append(refs("a", "b", "c")[1:], ev)},
		{"window 1", refs("a", "b"), 1, []EventRef{ev}},
		{"window 0 keeps none", refs("a"), 0, []EventRef{}},
		{"negative window keeps none", refs("a"), -2, []EventRef{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, AppendEvent(tc.events, ev, tc.window))
		})
	}
}

func TestLoopSpan(t *testing.T) {
	six := refs("s", "a", "b", "a", "b", "c")
	cases := []struct {
		name   string
		events []EventRef
		loop   Loop
		span   int
		last   []EventRef
		nodes  map[string]bool
	}{
		{
			"events before the loop", six, Loop{Period: 2, Repeats: 2},
			2, six[4:], map[string]bool{"b": true, "c": true},
		},
		{
			"period 1", six, Loop{Period: 1, Repeats: 3},
			3, six[5:], map[string]bool{"c": true},
		},
		{
			"the loop covers everything", six, Loop{Period: 3, Repeats: 2},
			0, six[3:], map[string]bool{"a": true, "b": true, "c": true},
		},
		{
			"fewer events kept than the loop", six, Loop{Period: 4, Repeats: 2},
			0, six[2:], map[string]bool{"b": true, "a": true, "c": true},
		},
		{
			"fewer events kept than one period", six[:2], Loop{Period: 4, Repeats: 2},
			0, six[:2], map[string]bool{"s": true, "a": true},
		},
		{
			"free-form calls have no node", []EventRef{{NodeID: "n0"}, {NodeID: "n1"}}, Loop{Period: 1, Repeats: 1},
			1, []EventRef{{NodeID: "n1"}}, map[string]bool{"": true},
		},
		{"no events", nil, Loop{Period: 2, Repeats: 2}, 0, []EventRef{}, map[string]bool{}},
		{"zero loop", six, Loop{}, 6, []EventRef{}, map[string]bool{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.span, LoopSpan(tc.events, tc.loop))
			last := LastPeriod(tc.events, tc.loop)
			if len(tc.last) == 0 {
				require.Empty(t, last)
			} else {
				require.Equal(t, tc.last, last)
			}
			require.Equal(t, tc.nodes, CycleNodes(tc.events, tc.loop))
		})
	}
}

// EventRef replaces the run state's loopEvent: the same JSON both ways.
func TestEventRefJSON(t *testing.T) {
	cases := []struct {
		ref  EventRef
		json string
	}{
		{EventRef{Where: "fetch", NodeID: "n7"}, `{"where":"fetch","node_id":"n7"}`},
		{EventRef{NodeID: "n8"}, `{"where":"","node_id":"n8"}`},
		{EventRef{}, `{"where":"","node_id":""}`},
	}
	for _, tc := range cases {
		raw, err := json.Marshal(tc.ref)
		require.NoError(t, err)
		require.JSONEq(t, tc.json, string(raw))
		require.Equal(t, tc.json, string(raw))
		var back EventRef
		require.NoError(t, json.Unmarshal([]byte(tc.json), &back))
		require.Equal(t, tc.ref, back)
	}
	var list []EventRef
	require.NoError(t, json.Unmarshal([]byte(`[{"where":"a","node_id":"n1"},{"node_id":"n2"}]`), &list))
	require.Equal(t, []EventRef{{Where: "a", NodeID: "n1"}, {NodeID: "n2"}}, list)
}
