package signals

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// The typed constants travel as the plain strings docs/contract.md names:
// a node, a status answer and a search attribute read the same as before
// the types existed, and decode back to the same constants.
func TestTypedConstantsRoundTripAsContractStrings(t *testing.T) {
	roundTrip := func(t *testing.T, v any, want string, back any) {
		t.Helper()
		b, err := json.Marshal(v)
		require.NoError(t, err)
		require.Equal(t, `"`+want+`"`, string(b))
		require.NoError(t, json.Unmarshal(b, back))
	}
	kinds := []string{"task", "request", "call", "repair", "escalation", "approval", "edit", "handoff", "human", "output", "summary", "budget"}
	require.Len(t, NodeKinds, len(kinds))
	for i, k := range NodeKinds {
		var back NodeKind
		roundTrip(t, k, kinds[i], &back)
		require.Equal(t, k, back)
	}
	statuses := []string{"pending", "running", "awaiting_approval", "completed", "failed", "invalidated", "skipped"}
	require.Len(t, NodeStatuses, len(statuses))
	for i, s := range NodeStatuses {
		var back NodeStatus
		roundTrip(t, s, statuses[i], &back)
		require.Equal(t, s, back)
	}
	phases := []string{"running", "awaiting_approval", "awaiting_human", "awaiting_user", "waiting_outage", "completed", "stopped"}
	require.Len(t, Phases, len(phases))
	for i, p := range Phases {
		var back Phase
		roundTrip(t, p, phases[i], &back)
		require.Equal(t, p, back)
	}
}

// A trace node and a status decode from the JSON a user (or an earlier
// version) wrote, typed fields included.
func TestNodeAndStatusDecodeFromContractJSON(t *testing.T) {
	var n Node
	require.NoError(t, json.Unmarshal([]byte(`{"id":"n3","kind":"call","status":"awaiting_approval","parents":["n2"],"agent":"travel","at":"2024-01-01T00:00:00Z"}`), &n))
	require.Equal(t, KindCall, n.Kind)
	require.Equal(t, StatusAwaitingApproval, n.Status)
	var st Status
	require.NoError(t, json.Unmarshal([]byte(`{"agent":"travel","phase":"awaiting_human"}`), &st))
	require.Equal(t, PhaseAwaitingHuman, st.Phase)
}

func TestEditRequestValidate(t *testing.T) {
	tests := []struct {
		req  EditRequest
		want string
	}{
		{EditRequest{NodeID: "n3", Output: json.RawMessage(`{"a": 1}`)}, ""},
		{EditRequest{NodeID: "n3", Args: json.RawMessage(`{"a": 1}`)}, ""},
		{EditRequest{Output: json.RawMessage(`1`)}, `edit: "node_id" is empty`},
		{EditRequest{NodeID: "n3"}, `edit: give "output" (the node's new output) or "args"`},
		{EditRequest{NodeID: "n3", Output: json.RawMessage(`1`), Args: json.RawMessage(`{}`)}, `give "output" or "args", not both`},
		{EditRequest{NodeID: "n3", Output: json.RawMessage(`{`)}, `"output" is not valid JSON`},
		{EditRequest{NodeID: "n3", Args: json.RawMessage(`[1]`)}, `"args" must be a JSON object`},
	}
	for _, tt := range tests {
		err := tt.req.Validate()
		if tt.want == "" {
			require.NoError(t, err)
			continue
		}
		require.ErrorContains(t, err, tt.want)
	}
}

func TestHandoffRequestValidate(t *testing.T) {
	require.NoError(t, HandoffRequest{}.Validate())
	require.NoError(t, HandoffRequest{To: "refunds", Note: "the customer wants a refund"}.Validate())
	require.ErrorContains(t, HandoffRequest{To: " refunds"}.Validate(), `handoff: "to" is " refunds"`)
}

// The handoff answer travels as docs/contract.md names it: "to" and "refused"
// left out when empty, "handoff_path" always there.
func TestHandoffResultWireShape(t *testing.T) {
	b, err := json.Marshal(HandoffResult{NodeID: "n12", HandoffPath: []string{"support"}})
	require.NoError(t, err)
	require.JSONEq(t, `{"node_id": "n12", "handoff_path": ["support"]}`, string(b))

	wire := `{"node_id": "n12", "to": "refunds", "refused": [{"agent": "billing", "why": "over capacity: 3 of 3 runs"}], "handoff_path": ["support", "refunds"]}`
	var got HandoffResult
	require.NoError(t, json.Unmarshal([]byte(wire), &got))
	require.Equal(t, HandoffResult{
		NodeID: "n12", To: "refunds",
		Refused:     []HandoffRefusal{{Agent: "billing", Why: "over capacity: 3 of 3 runs"}},
		HandoffPath: []string{"support", "refunds"},
	}, got)
	b, err = json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, wire, string(b))
}

func TestFailedToStartReadsTheRunsAnswer(t *testing.T) {
	for text, want := range map[string]string{
		"query failed: the run failed at its start: unknown agent \"x\"": `unknown agent "x"`,
		"the run failed at its start: input.task is empty":               "input.task is empty",
	} {
		why, ok := FailedToStart(errors.New(text))
		require.True(t, ok, text)
		require.Equal(t, want, why)
	}
	for _, err := range []error{nil, errors.New(RunStarting), errors.New("workflow not found")} {
		_, ok := FailedToStart(err)
		require.False(t, ok, "%v", err)
	}
}
