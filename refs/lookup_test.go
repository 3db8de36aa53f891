package refs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/refs"
)

func TestLookup(t *testing.T) {
	state := map[string]any{
		"user":  map[string]any{"name": "Ada", "tags": []any{"x", map[string]any{"deep": 7.0}}},
		"n":     3.0,
		"null":  nil,
		"empty": map[string]any{},
	}
	input := map[string]any{"query": "hi", "user": "input-user"}

	tests := []struct {
		name   string
		p      refs.Path
		want   any
		wantOK bool
	}{
		{"map key", st("n"), 3.0, true},
		{"nested map", st("user", "name"), "Ada", true},
		{"whole subtree", st("empty"), map[string]any{}, true},
		{"null value exists", st("null"), nil, true},
		{"array index", st("user", "tags", "0"), "x", true},
		{"through array into map", st("user", "tags", "1", "deep"), 7.0, true},
		{"missing key", st("nope"), nil, false},
		{"missing nested key", st("user", "age"), nil, false},
		{"out of range", st("user", "tags", "2"), nil, false},
		{"negative index", st("user", "tags", "-1"), nil, false},
		{"non-numeric index", st("user", "tags", "first"), nil, false},
		{"through a scalar", st("n", "x"), nil, false},
		{"through a string", st("user", "name", "0"), nil, false},
		{"through null", st("null", "x"), nil, false},
		{"input root", in("query"), "hi", true},
		{"input root is not state", in("n"), nil, false},
		{"same key different root", in("user"), "input-user", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := refs.Lookup(tt.p, state, input)
			require.Equal(t, tt.wantOK, ok)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestLookupNilRoots(t *testing.T) {
	_, ok := refs.Lookup(st("a"), nil, nil)
	require.False(t, ok)
	_, ok = refs.Lookup(in("a"), map[string]any{"a": 1.0}, nil)
	require.False(t, ok)
}
