package refs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/refs"
)

func TestWriteCreatesMaps(t *testing.T) {
	state := map[string]any{}
	refs.Write(state, st("a", "b", "c"), 1.0)
	require.Equal(t, map[string]any{"a": map[string]any{"b": map[string]any{"c": 1.0}}}, state)

	refs.Write(state, st("a", "x"), "y")
	require.Equal(t, map[string]any{"a": map[string]any{"b": map[string]any{"c": 1.0}, "x": "y"}}, state,
		"siblings are kept")

	refs.Write(state, st("top"), nil)
	v, ok := refs.Lookup(st("top"), state, nil)
	require.True(t, ok)
	require.Nil(t, v)
}

func TestWriteOverwritesScalarOnTheWay(t *testing.T) {
	state := map[string]any{"a": "scalar", "list": []any{1.0, 2.0}}
	refs.Write(state, st("a", "b"), 2.0)
	require.Equal(t, map[string]any{"b": 2.0}, state["a"])

	refs.Write(state, st("list", "0"), "z")
	require.Equal(t, map[string]any{"0": "z"}, state["list"], "a non-map on the way is replaced by a map")
}

func TestWriteLastWriteWins(t *testing.T) {
	state := map[string]any{}
	refs.Write(state, st("r"), "first")
	refs.Write(state, st("r"), "second")
	require.Equal(t, map[string]any{"r": "second"}, state)

	refs.Write(state, st("r", "nested"), 1.0)
	require.Equal(t, map[string]any{"r": map[string]any{"nested": 1.0}}, state)

	refs.Write(state, st("r"), "flat")
	require.Equal(t, map[string]any{"r": "flat"}, state, "a shorter write replaces the subtree")
}

func TestWriteThenResolve(t *testing.T) {
	state := map[string]any{}
	p, err := refs.ParseOutputPath("†state.search.results")
	require.NoError(t, err)
	refs.Write(state, p, []any{"r1", "r2"})

	got, errs := refs.Resolve(map[string]any{"first": "†state.search.results.0"}, state, nil)
	require.Empty(t, errs)
	require.Equal(t, map[string]any{"first": "r1"}, got)
}
