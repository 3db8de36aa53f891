package builtin

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// An order is made up, says so, is the same every time and was delivered
// damaged (the handoff demo's story depends on it).
func TestLookupOrderIsMadeUpDeterministicAndDamaged(t *testing.T) {
	lookup := func(args string) map[string]any {
		out, err := call(t, "lookup_order", Call{IdempotencyKey: "ignored", Args: json.RawMessage(args)})
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &m))
		return m
	}
	o := lookup(`{"order":"#1234"}`)
	require.Equal(t, "1234", o["order"])
	require.Equal(t, "delivered", o["status"])
	require.Contains(t, o["condition"], "damaged")
	require.Contains(t, o["data"], "made-up demo data")
	total, ok := o["total"].(float64)
	require.True(t, ok, "a total: %v", o)
	require.GreaterOrEqual(t, total, 20.0)
	require.Equal(t, o, lookup(`{"order":"1234"}`))
}

func TestOrderToolsRefuseBadArguments(t *testing.T) {
	for _, tt := range []struct{ tool, args, message string }{
		{"lookup_order", `{}`, "missing required parameter 'order'"},
		{"lookup_order", `{"order":"abc"}`, `invalid 'order' "abc"`},
		{"issue_refund", `{"order":"1234"}`, "'amount' must be more than 0"},
		{"issue_refund", `{"order":"1234","amount":-5}`, "'amount' must be more than 0"},
		{"issue_refund", `{"amount":5}`, "missing required parameter 'order'"},
	} {
		_, err := call(t, tt.tool, Call{Args: json.RawMessage(tt.args)})
		var e *Error
		require.ErrorAs(t, err, &e, tt.args)
		require.Equal(t, "invalid_args", e.Class, tt.args)
		require.Contains(t, e.Message, tt.message, tt.args)
	}
}

// A refund's id follows the idempotency key: a retry answers the same.
func TestIssueRefundIsIdempotentByKey(t *testing.T) {
	a, err := call(t, "issue_refund", Call{IdempotencyKey: "k1", Args: json.RawMessage(`{"order":"1234","amount":80}`)})
	require.NoError(t, err)
	b, err := call(t, "issue_refund", Call{IdempotencyKey: "k1", Args: json.RawMessage(`{"order":"1234","amount":80}`)})
	require.NoError(t, err)
	c, err := call(t, "issue_refund", Call{IdempotencyKey: "k2", Args: json.RawMessage(`{"order":"1234","amount":80}`)})
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.NotEqual(t, a, c)
	require.Contains(t, a, `"amount":80`)
	require.Regexp(t, `"refund_id":"RF-\d{6}"`, a)
}
