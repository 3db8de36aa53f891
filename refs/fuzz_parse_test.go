package refs_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/refs"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "hello", "†", "†state", "†state.", "†state.a", "†input.a.b",
		"†state.a || †input.b", "†state.a||†state.b", "†stat.x", "†state..x",
		"†state.a ||", "†state.a b", " †state.a ", "†state.a\t||\n†input.0",
		"†state.†", "†state.a|||†state.b", "†state.\xff", "†state.a\u00a0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ref, ok, err := refs.Parse(s)
		if !ok {
			require.NoError(t, err, "a non-reference is never an error")
			require.Empty(t, ref.Alts)
			require.False(t, strings.HasPrefix(s, refs.Prefix), "only a string starting with † is a reference")
			return
		}
		if err != nil {
			require.Empty(t, ref.Alts)
			return
		}
		require.NotEmpty(t, ref.Alts)
		for _, p := range ref.Alts {
			require.Contains(t, []string{refs.RootState, refs.RootInput}, p.Root)
			require.NotEmpty(t, p.Steps)
			for _, step := range p.Steps {
				require.NotEmpty(t, step)
				require.NotContains(t, step, ".")
				require.NotContains(t, step, "|")
			}
		}
		again, ok2, err2 := refs.Parse(ref.String())
		require.True(t, ok2, "%q -> %q", s, ref.String())
		require.NoError(t, err2, "%q -> %q", s, ref.String())
		require.Equal(t, ref, again, "%q -> %q", s, ref.String())
	})
}
