package approvalinbox

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestShapeNamesKeysAndKindsNeverValues(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{`{"to": "acme", "amount": 1200}`, "{amount: number, to: string}"},
		{`{"amount": 5, "to": "bob"}`, "{amount: number, to: string}"},
		{`{"ok": true, "note": null, "items": [1, 2]}`, "{items: array, note: null, ok: boolean}"},
		{`{"to": {"city": "Paris", "zip": 75001}}`, "{to: {city: string, zip: number}}"},
		{`{"a": {"b": {"c": {"d": 1}}}}`, "{a: {b: {c: object}}}"},
		{`{}`, "{}"},
		{``, "{}"},
		{`not json`, "{}"},
		{`[1, 2]`, "array"},
		{`"text"`, "string"},
	} {
		require.Equal(t, c.want, Shape(json.RawMessage(c.args)), c.args)
	}
}

func TestGroupIDIsStableAndTellsToolAndShapeApart(t *testing.T) {
	id := GroupID("pay", "{amount: number}")
	require.Equal(t, id, GroupID("pay", "{amount: number}"))
	require.True(t, ValidGroupID(id), id)
	require.NotEqual(t, id, GroupID("pay", "{amount: string}"))
	require.NotEqual(t, id, GroupID("refund", "{amount: number}"))
	for _, bad := range []string{"", "xyz", id + "0", "zzzzzzzzzz"} {
		require.False(t, ValidGroupID(bad), bad)
	}
}
