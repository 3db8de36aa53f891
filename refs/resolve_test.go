package refs_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/refs"
)

func mustJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v))
	return v
}

func TestResolveReplacesNested(t *testing.T) {
	state := mustJSON(t, `{"user":{"id":42,"name":"Ada"},"items":[10,20]}`)
	input := mustJSON(t, `{"q":"weather"}`)
	args := mustJSON(t, `{
		"id": "†state.user.id",
		"opts": {"query": "†input.q", "list": ["†state.items.1", "literal"]},
		"user": "†state.user",
		"n": 5, "flag": true, "none": null
	}`)

	got, errs := refs.Resolve(args, state, input)
	require.Empty(t, errs)
	require.Equal(t, mustJSON(t, `{
		"id": 42,
		"opts": {"query": "weather", "list": [20, "literal"]},
		"user": {"id":42,"name":"Ada"},
		"n": 5, "flag": true, "none": null
	}`), got)
}

func TestResolveFirstExistingAlternative(t *testing.T) {
	state := map[string]any{"b": "from-b", "c": "from-c", "null": nil}
	input := map[string]any{"x": "from-input"}
	tests := []struct {
		ref  string
		want any
	}{
		{"†state.a || †state.b", "from-b"},
		{"†state.b || †state.c", "from-b"},
		{"†state.a || †state.missing || †input.x", "from-input"},
		{"†input.x || †state.b", "from-input"},
		{"†state.null || †state.b", nil},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			got, errs := refs.Resolve(map[string]any{"v": tt.ref}, state, input)
			require.Empty(t, errs)
			require.Equal(t, map[string]any{"v": tt.want}, got)
		})
	}
}

func TestResolveUnresolved(t *testing.T) {
	args := map[string]any{"outer": map[string]any{"a/b": []any{"ok", "†state.x || †input.y"}}}
	got, errs := refs.Resolve(args, map[string]any{}, map[string]any{})
	require.Len(t, errs, 1)
	msg := errs[0].Error()
	require.Contains(t, msg, "/outer/a~1b/1", "names the JSON Pointer")
	require.Contains(t, msg, "†state.x || †input.y", "names the reference")
	require.Contains(t, msg, "unresolved")
	require.Equal(t, args, got, "the unresolved string is left in place")
}

func TestResolveMalformed(t *testing.T) {
	args := map[string]any{"a": "†stat.x", "b": "†state.ok"}
	got, errs := refs.Resolve(args, map[string]any{"ok": 1.0}, nil)
	require.Len(t, errs, 1)
	require.Contains(t, errs[0].Error(), "/a")
	require.Contains(t, errs[0].Error(), "malformed reference")
	require.Equal(t, map[string]any{"a": "†stat.x", "b": 1.0}, got)
}

func TestResolveCollectsEveryError(t *testing.T) {
	args := []any{"†state.a", "†state..b", "†input.c", "fine"}
	_, errs := refs.Resolve(args, nil, nil)
	require.Len(t, errs, 3)
	require.Contains(t, errs[0].Error(), "/0")
	require.Contains(t, errs[1].Error(), "/1")
	require.Contains(t, errs[2].Error(), "/2")
}

func TestResolveLeavesNonReferences(t *testing.T) {
	args := map[string]any{
		"a": "plain",
		"b": "state.a",
		"c": "see †state.a",
		"d": "",
		"e": []any{"x", 1.0, nil, false},
	}
	got, errs := refs.Resolve(args, map[string]any{"a": "A"}, nil)
	require.Empty(t, errs)
	require.Equal(t, args, got)
}

func TestResolveDoesNotMutateArgs(t *testing.T) {
	raw := `{"a":"†state.v","b":{"c":["†input.w",{"d":"†state.v"}]}}`
	args := mustJSON(t, raw)
	state := mustJSON(t, `{"v":{"deep":1}}`)
	input := mustJSON(t, `{"w":"W"}`)

	got, errs := refs.Resolve(args, state, input)
	require.Empty(t, errs)
	require.Equal(t, mustJSON(t, raw), args, "args unchanged")
	require.Equal(t, mustJSON(t, `{"v":{"deep":1}}`), state, "state unchanged")
	require.Equal(t, mustJSON(t, `{"w":"W"}`), input, "input unchanged")

	// The result is a fresh container: changing it leaves args alone.
	got.(map[string]any)["b"].(map[string]any)["c"].([]any)[0] = "changed"
	require.Equal(t, mustJSON(t, raw), args)
}
