package config

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCompileSchemaAssertsFormats(t *testing.T) {
	s, err := CompileSchema("test", map[string]any{
		"type":       "object",
		"properties": map[string]any{"date": map[string]any{"type": "string", "format": "date"}},
		"required":   []any{"date"},
	})
	require.NoError(t, err)
	require.NoError(t, s.Validate(map[string]any{"date": "2024-01-15"}))
	require.ErrorContains(t, s.Validate(map[string]any{"date": "15/01/2024"}), "is not valid date")
	require.Error(t, s.Validate(map[string]any{}))
}

func TestCompileSchemaDraft2020(t *testing.T) {
	// prefixItems exists in 2020-12 only.
	s, err := CompileSchema("test", map[string]any{
		"type": "array", "prefixItems": []any{map[string]any{"type": "integer"}}, "items": false,
	})
	require.NoError(t, err)
	require.NoError(t, s.Validate([]any{1}))
	require.Error(t, s.Validate([]any{1, 2}))
}

func TestCompileSchemaLocalRef(t *testing.T) {
	s, err := CompileSchema("test", map[string]any{
		"$defs":      map[string]any{"id": map[string]any{"type": "string", "minLength": 2}},
		"type":       "object",
		"properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/id"}},
	})
	require.NoError(t, err)
	require.Error(t, s.Validate(map[string]any{"a": "x"}))
}

func TestCompileSchemaRefusesOtherDocuments(t *testing.T) {
	for _, ref := range []string{"https://example.com/schema.json", "other.json", "file:///etc/passwd"} {
		_, err := CompileSchema("tools[0].parameters", map[string]any{"$ref": ref})
		require.ErrorContains(t, err, "tools[0].parameters: invalid JSON Schema: cannot load", ref)
		require.ErrorContains(t, err, "must be self-contained", ref)
	}
	_, err := CompileSchema("x", map[string]any{"$schema": "https://example.com/meta"})
	require.ErrorContains(t, err, "must be self-contained")
}

func TestCompileSchemaErrors(t *testing.T) {
	_, err := CompileSchema("out", map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": 3}}})
	require.ErrorContains(t, err, "out: invalid JSON Schema at /properties/n/type: value must be one of")
	var se *SchemaError
	require.True(t, errors.As(err, &se))
	require.Equal(t, []string{"properties", "n", "type"}, se.At)

	_, err = CompileSchema("out", map[string]any{"pattern": "("})
	require.ErrorContains(t, err, "out: invalid JSON Schema at /pattern:")

	_, err = CompileSchema("out", map[string]any{"enum": map[any]any{1: 2}})
	require.EqualError(t, err, "out: invalid JSON Schema: not plain JSON: object keys must be strings")
}

func TestCompileSchemaYAMLValues(t *testing.T) {
	// Values as the YAML decoder makes them: int, []any, nested maps.
	s, err := CompileSchema("y", map[string]any{"type": "integer", "maximum": 10, "enum": []any{1, 5, 20}})
	require.NoError(t, err)
	require.NoError(t, s.Validate(5))
	require.Error(t, s.Validate(20))

	s, err = CompileSchema("nil", nil)
	require.NoError(t, err)
	require.NoError(t, s.Validate("anything"))
}
