package builtin

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// A city's hotels are made up, say so, name the city, and are the same
// every time (the chat demo's story depends on it).
func TestFindHotelsIsMadeUpAndDeterministic(t *testing.T) {
	find := func(args string) map[string]any {
		out, err := call(t, "find_hotels", Call{IdempotencyKey: "ignored", Args: json.RawMessage(args)})
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &m))
		return m
	}
	lisbon := find(`{"city":"lisbon"}`)
	require.Equal(t, "Lisbon", lisbon["city"], "capitalised")
	require.Contains(t, lisbon["data"], "made-up demo data")
	hotels := lisbon["hotels"].([]any)
	require.Len(t, hotels, 3)
	names := map[string]bool{}
	for _, h := range hotels {
		h := h.(map[string]any)
		require.Contains(t, h["name"], "Lisbon")
		require.Contains(t, h["area"], "near ")
		require.GreaterOrEqual(t, h["stars"], 3.0)
		require.GreaterOrEqual(t, h["price_per_night_usd"], 80.0)
		names[h["name"].(string)] = true
	}
	require.Len(t, names, 3, "three different hotels")
	require.Equal(t, lisbon, find(`{"city":"  Lisbon "}`))
	require.Equal(t, "New York", find(`{"city":"new york"}`)["city"])
}

func TestFindHotelsRefusesBadArguments(t *testing.T) {
	for _, tt := range []struct{ args, message string }{
		{`{}`, "missing required parameter 'city'"},
		{`{"city":"  "}`, "missing required parameter 'city'"},
		{`{"city":"12 Main St"}`, `invalid 'city' "12 Main St"`},
		{`{"city":5}`, "find_hotels: arguments are not valid"},
	} {
		_, err := call(t, "find_hotels", Call{Args: json.RawMessage(tt.args)})
		var e *Error
		require.ErrorAs(t, err, &e, tt.args)
		require.Equal(t, "invalid_args", e.Class, tt.args)
		require.Contains(t, e.Message, tt.message, tt.args)
	}
}
