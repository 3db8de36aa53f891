package repair

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// obj decodes a JSON object literal with numbers as json.Number, as the
// workflow decodes call arguments.
func obj(t testing.TB, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var m map[string]any
	require.NoError(t, dec.Decode(&m), s)
	return m
}

// schemaOf decodes a schema literal with float64 numbers, as a YAML or
// plain JSON decoder leaves them.
func schemaOf(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &m), s)
	return m
}

// canon is the canonical JSON of a value, to compare argument sets.
func canon(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// flightSchema is the seed's book_flight tool.
const flightSchema = `{
  "type": "object",
  "properties": {
    "origin": {"type": "string", "pattern": "^[A-Z]{3}$"},
    "destination": {"type": "string", "pattern": "^[A-Z]{3}$"},
    "departure_date": {"type": "string", "format": "date"},
    "return_date": {"type": "string", "format": "date"},
    "passengers": {"type": "integer", "minimum": 1, "maximum": 9},
    "class": {"type": "string", "enum": ["economy", "premium_economy", "business", "first"]}
  },
  "required": ["origin", "destination", "departure_date", "passengers"],
  "additionalProperties": false
}`

// today is a fixed "now" for dates without a year.
var today = time.Date(2024, 9, 1, 12, 0, 0, 0, time.UTC)

// strategies lists the strategies of a result's repairs, in order.
func strategies(r Result) []string {
	var out []string
	for _, a := range r.Repairs {
		out = append(out, a.Strategy)
	}
	return out
}
