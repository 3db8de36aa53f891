package refs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/refs"
)

func TestFind(t *testing.T) {
	args := map[string]any{
		"zeta":  "†state.z",
		"alpha": "plain text",
		"mid": map[string]any{
			"b": "†input.q.r",
			"a": []any{"x", "†state.list.0", 3.0, true, nil, map[string]any{"k": "†state.k || †input.k"}},
		},
		"a/b":  "†state.slash",
		"t~x":  "†state.tilde",
		"~/":   "†state.both",
		"bad":  "†stat.x",
		"num":  1.5,
		"none": nil,
	}
	got := refs.Find(args)

	var at []string
	for _, f := range got {
		at = append(at, f.At)
	}
	require.Equal(t, []string{
		"/a~1b",
		"/bad",
		"/mid/a/1",
		"/mid/a/5/k",
		"/mid/b",
		"/t~0x",
		"/zeta",
		"/~0~1",
	}, at, "keys sorted bytewise, arrays in order, ~ and / escaped")

	byAt := map[string]refs.Found{}
	for _, f := range got {
		byAt[f.At] = f
	}
	require.Equal(t, refs.Ref{Alts: []refs.Path{st("slash")}}, byAt["/a~1b"].Ref)
	require.Equal(t, refs.Ref{Alts: []refs.Path{st("list", "0")}}, byAt["/mid/a/1"].Ref)
	require.Equal(t, refs.Ref{Alts: []refs.Path{st("k"), in("k")}}, byAt["/mid/a/5/k"].Ref)
	require.Equal(t, refs.Ref{Alts: []refs.Path{in("q", "r")}}, byAt["/mid/b"].Ref)
	for a, f := range byAt {
		if a == "/bad" {
			require.Error(t, f.Err, "a malformed reference is reported, not skipped")
			require.Empty(t, f.Ref.Alts)
			continue
		}
		require.NoError(t, f.Err, a)
	}
}

func TestFindDeterministic(t *testing.T) {
	args := map[string]any{}
	for _, k := range []string{"e", "d", "c", "b", "a", "f", "g", "h"} {
		args[k] = "†state." + k
	}
	first := refs.Find(args)
	for range 50 {
		require.Equal(t, first, refs.Find(args))
	}
	require.Equal(t, "/a", first[0].At)
	require.Equal(t, "/h", first[len(first)-1].At)
}

func TestFindScalarsAndEmpty(t *testing.T) {
	require.Empty(t, refs.Find(nil))
	require.Empty(t, refs.Find(map[string]any{}))
	require.Empty(t, refs.Find([]any{}))
	require.Empty(t, refs.Find(map[string]any{"a": 1.0, "b": "x", "c": []any{false}}))

	got := refs.Find("†state.a")
	require.Len(t, got, 1)
	require.NoError(t, got[0].Err)
	require.Equal(t, refs.Ref{Alts: []refs.Path{st("a")}}, got[0].Ref)
}

func TestReads(t *testing.T) {
	found := refs.Find(map[string]any{
		"a": "†state.a || †input.b",
		"b": "†state..broken",
		"c": []any{"†state.c.d"},
	})
	require.Len(t, found, 3)
	require.Equal(t, []refs.Path{st("a"), in("b"), st("c", "d")}, refs.Reads(found),
		"every alternative is read, malformed references are left out")
	require.Empty(t, refs.Reads(nil))
}
