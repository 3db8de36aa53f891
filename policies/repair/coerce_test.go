package repair

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCoerceType(t *testing.T) {
	n := func(s string) json.Number { return json.Number(s) }
	cases := []struct {
		name string
		in   any
		want []string
		out  any
		ok   bool
	}{
		{"string to integer", "2", []string{"integer"}, n("2"), true},
		{"padded string to integer", " 42 ", []string{"integer"}, n("42"), true},
		{"plus sign", "+3", []string{"integer"}, n("3"), true},
		{"whole decimal to integer", "2.0", []string{"integer"}, n("2"), true},
		{"exponent to integer", "1e3", []string{"integer"}, n("1000"), true},
		{"fraction is not an integer", "2.5", []string{"integer"}, nil, false},
		{"string to number keeps its text", "2.50", []string{"number"}, n("2.50"), true},
		{"leading zeros", "007", []string{"number"}, n("7"), true},
		{"leading dot", ".5", []string{"number"}, n("0.5"), true},
		{"words are not numbers", "two", []string{"integer", "number"}, nil, false},
		{"thousands separator refused", "1,000", []string{"integer"}, nil, false},
		{"huge exponent refused", "1e999999", []string{"number"}, nil, false},
		{"true", "true", []string{"boolean"}, true, true},
		{"Yes", "Yes", []string{"boolean"}, true, true},
		{"no", " no ", []string{"boolean"}, false, true},
		{"FALSE", "FALSE", []string{"boolean"}, false, true},
		{"maybe is no boolean", "maybe", []string{"boolean"}, nil, false},
		{"number to string", n("3"), []string{"string"}, "3", true},
		{"decimal to string", n("3.50"), []string{"string"}, "3.50", true},
		{"bool to string", true, []string{"string"}, "true", true},
		{"1 to boolean", n("1"), []string{"boolean"}, true, true},
		{"0 to boolean", n("0"), []string{"boolean"}, false, true},
		{"2 is no boolean", n("2"), []string{"boolean"}, nil, false},
		{"0.5 is no boolean", n("0.5"), []string{"boolean"}, nil, false},
		{"fraction to integer refused", n("2.5"), []string{"integer"}, nil, false},
		{"string to array", "a", []string{"array"}, []any{"a"}, true},
		{"a list is not wrapped whole", "a, b", []string{"array"}, nil, false},
		{"number to array", n("1"), []string{"array"}, []any{n("1")}, true},
		{"object to array", map[string]any{"k": "v"}, []string{"array"}, []any{map[string]any{"k": "v"}}, true},
		{"JSON array in a string", `["a", 1]`, []string{"array"}, []any{"a", n("1")}, true},
		{"JSON object in a string", `{"k": 1}`, []string{"object"}, map[string]any{"k": n("1")}, true},
		{"broken JSON in a string", `{"k": `, []string{"object"}, nil, false},
		{"trailing junk after JSON", `[1] junk`, []string{"array"}, nil, false},
		{"one-item array to scalar", []any{n("4")}, []string{"integer"}, n("4"), true},
		{"one-item array converted", []any{"4"}, []string{"integer"}, n("4"), true},
		{"two-item array stays", []any{"4", "5"}, []string{"integer"}, nil, false},
		{"null is not guessed", nil, []string{"integer", "string"}, nil, false},
		{"first type that works", n("3"), []string{"boolean", "string", "array"}, "3", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, why, ok := coerceType(c.in, c.want)
			require.Equal(t, c.ok, ok)
			require.Equal(t, c.out, out)
			if ok {
				require.NotEmpty(t, why)
			}
		})
	}
}
