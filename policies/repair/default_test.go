package repair

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRepairDefaults(t *testing.T) {
	cases := []struct {
		name   string
		schema string
		args   string
		want   string
		valid  bool
	}{
		{"default", `{"type": "object", "properties": {"n": {"type": "integer", "default": 1}}, "required": ["n"]}`,
			`{}`, `{"n": 1}`, true},
		{"object default, copied", `{"type": "object", "properties": {"o": {"type": "object", "default": {"a": [1]}}}, "required": ["o"]}`,
			`{}`, `{"o": {"a": [1]}}`, true},
		{"const", `{"type": "object", "properties": {"v": {"const": "v2"}}, "required": ["v"]}`,
			`{}`, `{"v": "v2"}`, true},
		{"enum of one", `{"type": "object", "properties": {"v": {"enum": ["only"]}}, "required": ["v"]}`,
			`{}`, `{"v": "only"}`, true},
		{"default through $ref", `{"type": "object", "$defs": {"n": {"type": "integer", "default": 2}},
			"properties": {"n": {"$ref": "#/$defs/n"}}, "required": ["n"]}`, `{}`, `{"n": 2}`, true},
		{"default through allOf", `{"allOf": [{"type": "object", "properties": {"n": {"default": 3}}}], "required": ["n"]}`,
			`{}`, `{"n": 3}`, true},
		{"nested object", `{"type": "object", "properties": {"p": {"type": "object",
			"properties": {"adults": {"type": "integer", "default": 1}}, "required": ["adults"]}}}`,
			`{"p": {}}`, `{"p": {"adults": 1}}`, true},
		{"enum of several: judgement", `{"type": "object", "properties": {"v": {"enum": ["a", "b"]}}, "required": ["v"]}`,
			`{}`, `{}`, false},
		{"no schema for it: judgement", `{"type": "object", "required": ["n"]}`, `{}`, `{}`, false},
		{"some with, some without", `{"type": "object", "properties": {"n": {"default": 1}, "m": {"type": "string"}}, "required": ["m", "n"]}`,
			`{}`, `{"n": 1}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Repair(schemaOf(t, c.schema), obj(t, c.args), Options{})
			require.Equal(t, c.valid, r.Valid, r.Reason)
			require.Equal(t, canon(t, obj(t, c.want)), canon(t, r.Args))
		})
	}
}

// A default inserted twice is two copies: repairing one never changes
// the other or the schema.
func TestDefaultIsCopied(t *testing.T) {
	s := schemaOf(t, `{"type": "object", "properties": {"a": {"type": "object", "default": {"k": "1"},
		"properties": {"k": {"type": "integer"}}}}, "required": ["a"]}`)
	r := Repair(s, obj(t, `{}`), Options{})
	require.True(t, r.Valid, r.Reason)
	require.Equal(t, json.Number("1"), r.Args["a"].(map[string]any)["k"])
	require.Equal(t, "1", s["properties"].(map[string]any)["a"].(map[string]any)["default"].(map[string]any)["k"])
	require.Equal(t, map[string]any{"k": "1"}, r.Repairs[0].After, "the record of the repair keeps what was inserted")
}
