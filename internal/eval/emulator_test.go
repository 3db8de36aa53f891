package eval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies"
)

func TestEmulator(t *testing.T) {
	c := &Case{Tools: []ToolResult{
		{Tool: "search", Args: map[string]any{"q": "x"}, Error: &ToolError{Class: "transient", Message: "tool search: 503"}},
		{Tool: "search", Args: map[string]any{"q": "x"}, Result: map[string]any{"hits": 1}},
	}}
	call := func(e *Emulator, tool, effect, args string) activities.Emulation {
		return e.Answer(activities.EmulatedCall{WorkflowID: "w", Tool: tool, Effect: effect, Args: json.RawMessage(args)})
	}
	for _, tc := range []struct {
		name       string
		unrecorded string
		tool       string
		effect     string
		args       string
		want       activities.Emulation
		diverged   int
		live       int
	}{
		{"recorded", UnrecordedError, "search", "read", `{"q":"x"}`, activities.Emulation{ErrorClass: policies.Transient, ErrorMessage: "tool search: 503"}, 0, 0},
		{"unrecorded: an error", UnrecordedError, "search", "read", `{"q":"y"}`, activities.Emulation{ErrorClass: policies.Persistent,
			ErrorMessage: `tool search: the call search {"q":"y"} was not recorded (the eval case's recording has no such call)`}, 1, 0},
		{"unrecorded live: a read tool is called", UnrecordedLive, "search", "read", `{"q":"y"}`, activities.Emulation{Live: true}, 0, 1},
		{"unrecorded live: a write tool is not", UnrecordedLive, "book", "write", `{}`, activities.Emulation{ErrorClass: policies.Persistent,
			ErrorMessage: `tool book: the call book {} was not recorded (the eval case's recording has no such call, and tool book's effect is write, not read, so it is not called live)`}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEmulator(tc.unrecorded)
			e.Add("w", c)
			require.Equal(t, tc.want, call(e, tc.tool, tc.effect, tc.args))
			diverged, live := e.OffRecord("w")
			require.Len(t, diverged, tc.diverged)
			require.Len(t, live, tc.live)
		})
	}
	e := NewEmulator(UnrecordedError)
	e.Add("w", c)
	call(e, "search", "read", `{"q":"x"}`)
	require.Equal(t, activities.Emulation{Result: json.RawMessage(`{"hits":1}`)}, call(e, "search", "read", `{"q":"x"}`), "the retry gets the recorded success")
	other := e.Answer(activities.EmulatedCall{WorkflowID: "child", Tool: "search", Effect: "read", Args: json.RawMessage(`{"q":"x"}`)})
	require.Equal(t, policies.Persistent, other.ErrorClass, "a run without a case has no recording")
}
