package policies

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestArgShapeNamesKeysAndKindsNeverValues(t *testing.T) {
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
		require.Equal(t, c.want, ArgShape(json.RawMessage(c.args)), c.args)
	}
}
