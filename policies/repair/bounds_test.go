package repair

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// nested is {"a": {"a": ... {"a": 1}}} depth levels deep.
func nested(depth int) map[string]any {
	var v any = json.Number("1")
	for range depth {
		v = map[string]any{"a": v}
	}
	return v.(map[string]any)
}

// Enormous or deeply nested arguments end quickly, with a reason.
func TestRepairBounds(t *testing.T) {
	open := schemaOf(t, `{"type": "object"}`)
	closed := schemaOf(t, `{"type": "object", "properties": {"keep": {"type": "integer"}}, "additionalProperties": false}`)
	typed := schemaOf(t, `{"type": "object", "additionalProperties": {"type": "integer"}}`)

	wide := map[string]any{}
	for i := range 10000 {
		wide[fmt.Sprintf("p%05d", i)] = fmt.Sprint(i)
	}
	huge := map[string]any{"s": strings.Repeat("x", MaxBytes)}
	cyclic := map[string]any{}
	cyclic["self"] = cyclic

	cases := []struct {
		name   string
		schema map[string]any
		args   map[string]any
		valid  bool
		reason string
	}{
		{"nesting depth 1,000", open, nested(1000), false, "nest deeper than 64"},
		{"nesting depth 64 is fine", open, nested(MaxDepth), true, "arguments are valid"},
		{"a cycle", open, cyclic, false, "nest deeper"},
		{"10,000 forbidden properties are removed", closed, wide, true, "valid after 10000 repair"},
		{"10,000 numbers as strings are converted", typed, wide, true, "valid after 10000 repair"},
		{"over 1 MiB, valid", open, huge, true, "arguments are valid"},
		{"over 1 MiB, invalid", closed, huge, false, "too large to repair"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			r := Repair(c.schema, c.args, Options{})
			require.Less(t, time.Since(start), 5*time.Second)
			require.Equal(t, c.valid, r.Valid, r.Reason)
			require.Contains(t, r.Reason, c.reason)
			rr := RepairRejection(c.schema, c.args, "value for 'p00001' must be >= 5", Options{})
			require.False(t, rr.Valid && rr.Reason == "", "a reason is always given")
		})
	}
}

// measure stops at its budget even on a value shared many times over
// (2^64 paths through 64 levels).
func TestMeasureShared(t *testing.T) {
	var v any = "leaf"
	for range 64 {
		v = map[string]any{"l": v, "r": v}
	}
	start := time.Now()
	s := measure(v)
	require.True(t, s.big)
	require.Less(t, time.Since(start), 5*time.Second)
}
