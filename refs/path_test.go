package refs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/refs"
)

func TestPathString(t *testing.T) {
	require.Equal(t, "†state.a", st("a").String())
	require.Equal(t, "†state.a.b.0", st("a", "b", "0").String())
	require.Equal(t, "†input.x.y", in("x", "y").String())
}

func TestPathOverlaps(t *testing.T) {
	tests := []struct {
		name string
		p, q refs.Path
		want bool
	}{
		{"equal", st("a", "b"), st("a", "b"), true},
		{"p prefix of q", st("a"), st("a", "b", "c"), true},
		{"q prefix of p", st("a", "b", "c"), st("a"), true},
		{"siblings", st("a", "b"), st("a", "c"), false},
		{"different first step", st("a"), st("b"), false},
		{"diverge deep", st("a", "b", "c"), st("a", "b", "d", "e"), false},
		{"different roots same steps", st("a"), in("a"), false},
		{"different roots prefix", st("a"), in("a", "b"), false},
		{"step is a string prefix only", st("ab"), st("a"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.p.Overlaps(tt.q))
			require.Equal(t, tt.want, tt.q.Overlaps(tt.p), "Overlaps is symmetric")
		})
	}
}
