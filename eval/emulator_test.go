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
		defaulted  []string
	}{
		{"recorded", UnrecordedError, "search", "read", `{"q":"x"}`, activities.Emulation{ErrorClass: policies.Transient, ErrorMessage: "tool search: 503"}, 0, 0, nil},
		{"unrecorded: an error", UnrecordedError, "search", "read", `{"q":"y"}`, activities.Emulation{ErrorClass: policies.Persistent,
			ErrorMessage: `tool search: the call search {"q":"y"} was not recorded (the eval case's recording has no such call)`}, 1, 0, nil},
		{"unrecorded live: a read tool is called", UnrecordedLive, "search", "read", `{"q":"y"}`, activities.Emulation{Live: true}, 0, 1, nil},
		{"unrecorded live: a write tool is not", UnrecordedLive, "book", "write", `{}`, activities.Emulation{ErrorClass: policies.Persistent,
			ErrorMessage: `tool book: the call book {} was not recorded (the eval case's recording has no such call, and tool book's effect is write, not read, so it is not called live)`}, 1, 0, nil},
		{"unrecorded live: a read by default is not", UnrecordedLive, "search", "read", `{"q":"y"}`, activities.Emulation{ErrorClass: policies.Persistent,
			ErrorMessage: `tool search: the call search {"q":"y"} was not recorded (the eval case's recording has no such call, and tool search's effect is not declared in the config (effect: read), so it is not called live)`}, 1, 0, []string{"search"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEmulator(tc.unrecorded, tc.defaulted...)
			e.Add("w", c)
			require.Equal(t, tc.want, call(e, tc.tool, tc.effect, tc.args))
			diverged, live := e.Done("w")
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

// A run's replay is forgotten once the run is done, and a call of it
// after that, or of a run never added, is off the record and not kept:
// an eval of many repeats ends with nothing held.
func TestEmulatorForgetsDoneRuns(t *testing.T) {
	// The call is recorded twice, so a run kept would answer it again.
	found := ToolResult{Tool: "search", Args: map[string]any{"q": "x"}, Result: map[string]any{"hits": 1}}
	c := &Case{Tools: []ToolResult{found, found}}
	e := NewEmulator(UnrecordedError)
	call := func(id string) activities.Emulation {
		return e.Answer(activities.EmulatedCall{WorkflowID: id, Tool: "search", Effect: "read", Args: json.RawMessage(`{"q":"x"}`)})
	}
	for _, id := range []string{"run-1", "run-2"} {
		e.Add(id, c)
		require.Equal(t, activities.Emulation{Result: json.RawMessage(`{"hits":1}`)}, call(id), id)
	}
	require.Len(t, e.runs, 2)

	diverged, live := e.Done("run-1")
	require.Empty(t, diverged)
	require.Empty(t, live)
	require.Len(t, e.runs, 1)
	require.Equal(t, policies.Persistent, call("run-1").ErrorClass, "a call after Done has no recording")
	require.Equal(t, policies.Persistent, call("child").ErrorClass, "a run never added has no recording")
	require.Len(t, e.runs, 1, "neither is kept")

	e.Done("run-2")
	require.Empty(t, e.runs)
	diverged, live = e.Done("run-2")
	require.Nil(t, diverged, "a run done twice has nothing left")
	require.Nil(t, live)
}
