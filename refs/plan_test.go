package refs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/refs"
)

// call builds a CallIO: reads are references, write an _outputPath ("" for none).
func call(t testing.TB, write string, reads ...string) refs.CallIO {
	t.Helper()
	var c refs.CallIO
	for _, r := range reads {
		ref, ok, err := refs.Parse(r)
		require.True(t, ok)
		require.NoError(t, err)
		c.Reads = append(c.Reads, ref.Alts...)
	}
	if write != "" {
		p, err := refs.ParseOutputPath(write)
		require.NoError(t, err)
		c.Write = &p
	}
	return c
}

func TestPlanEmpty(t *testing.T) {
	deps, cyclic := refs.Plan(nil)
	require.Empty(t, deps)
	require.Empty(t, cyclic)
}

func TestPlanIndependent(t *testing.T) {
	deps, cyclic := refs.Plan([]refs.CallIO{
		call(t, "†state.a", "†input.x"),
		call(t, "†state.b", "†state.z"),
		call(t, "", "†input.x"),
		call(t, ""),
	})
	require.Equal(t, [][]int{nil, nil, nil, nil}, deps)
	require.Equal(t, []bool{false, false, false, false}, cyclic)
}

func TestPlanChain(t *testing.T) {
	deps, cyclic := refs.Plan([]refs.CallIO{
		call(t, "†state.c", "†state.b"), // 0 waits for 1
		call(t, "†state.b", "†state.a"), // 1 waits for 2
		call(t, "†state.a"),             // 2 runs first
	})
	require.Equal(t, [][]int{{1}, {2}, nil}, deps)
	require.Equal(t, []bool{false, false, false}, cyclic)
}

func TestPlanDiamond(t *testing.T) {
	deps, cyclic := refs.Plan([]refs.CallIO{
		call(t, "†state.top"),
		call(t, "†state.left", "†state.top"),
		call(t, "†state.right", "†state.top"),
		call(t, "†state.out", "†state.left", "†state.right"),
	})
	require.Equal(t, [][]int{nil, {0}, {0}, {1, 2}}, deps)
	require.Equal(t, []bool{false, false, false, false}, cyclic)
}

func TestPlanTwoWritersOnePath(t *testing.T) {
	deps, cyclic := refs.Plan([]refs.CallIO{
		call(t, "†state.r"),
		call(t, "", "†state.r"),
		call(t, "†state.r"),
	})
	require.Equal(t, [][]int{nil, {0, 2}, nil}, deps, "the reader waits for both writers")
	require.Equal(t, []bool{false, false, false}, cyclic)
}

func TestPlanAlternativesReadEveryPath(t *testing.T) {
	deps, _ := refs.Plan([]refs.CallIO{
		call(t, "†state.a"),
		call(t, "†state.b"),
		call(t, "", "†state.a || †state.b"),
	})
	require.Equal(t, []int{0, 1}, deps[2])
}

func TestPlanInputIsNeverWritten(t *testing.T) {
	deps, cyclic := refs.Plan([]refs.CallIO{
		call(t, "†state.x"),
		call(t, "", "†input.x"),
	})
	require.Empty(t, deps[1])
	require.False(t, cyclic[1])
}

func TestPlanSelfReference(t *testing.T) {
	deps, cyclic := refs.Plan([]refs.CallIO{
		call(t, "†state.a", "†state.a"),
		call(t, "†state.b.c", "†state.b"),
		call(t, "", "†state.a"),
	})
	require.Empty(t, deps[0], "a call is never its own dependency")
	require.Empty(t, deps[1])
	require.Equal(t, []int{0}, deps[2])
	require.Equal(t, []bool{true, true, false}, cyclic)
}

func TestPlanTwoCycle(t *testing.T) {
	deps, cyclic := refs.Plan([]refs.CallIO{
		call(t, "†state.a", "†state.b"),
		call(t, "†state.b", "†state.a"),
		call(t, "", "†state.a"), // depends on the cycle, not in it
		call(t, "", "†input.z"),
	})
	require.Equal(t, [][]int{{1}, {0}, {0}, nil}, deps)
	require.Equal(t, []bool{true, true, false, false}, cyclic)
}

func TestPlanThreeCycle(t *testing.T) {
	deps, cyclic := refs.Plan([]refs.CallIO{
		call(t, "†state.out", "†state.c"), // depends on the cycle
		call(t, "†state.a", "†state.c"),
		call(t, "†state.b", "†state.a"),
		call(t, "†state.c", "†state.b"),
	})
	require.Equal(t, [][]int{{3}, {3}, {1}, {2}}, deps)
	require.Equal(t, []bool{false, true, true, true}, cyclic)
}

func TestPlanPrefixOverlap(t *testing.T) {
	t.Run("reads deeper than written", func(t *testing.T) {
		deps, cyclic := refs.Plan([]refs.CallIO{
			call(t, "", "†state.a.b"),
			call(t, "†state.a"),
		})
		require.Equal(t, [][]int{{1}, nil}, deps)
		require.Equal(t, []bool{false, false}, cyclic)
	})
	t.Run("reads shallower than written", func(t *testing.T) {
		deps, cyclic := refs.Plan([]refs.CallIO{
			call(t, "", "†state.a"),
			call(t, "†state.a.b"),
		})
		require.Equal(t, [][]int{{1}, nil}, deps)
		require.Equal(t, []bool{false, false}, cyclic)
	})
	t.Run("siblings do not wait", func(t *testing.T) {
		deps, _ := refs.Plan([]refs.CallIO{
			call(t, "", "†state.a.c"),
			call(t, "†state.a.b"),
		})
		require.Equal(t, [][]int{nil, nil}, deps)
	})
}
