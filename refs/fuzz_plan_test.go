package refs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/refs"
)

// fuzzPath turns one byte into a small path: the top two bits set pick
// †input, the next two bits a depth of 1 to 3, the low bits the steps
// from {a, b}, so paths often overlap.
func fuzzPath(b byte) refs.Path {
	p := refs.Path{Root: refs.RootState}
	if b&0xC0 == 0xC0 {
		p.Root = refs.RootInput
	}
	depth := 1 + int(b>>4&3)%3
	for k := range depth {
		p.Steps = append(p.Steps, string(rune('a'+int(b>>k&1))))
	}
	return p
}

// fuzzCalls builds up to 12 calls: per call one header byte (bit 0: has
// a write; bits 1-2: number of reads) and one byte per path.
func fuzzCalls(data []byte) []refs.CallIO {
	if len(data) == 0 {
		return nil
	}
	n := int(data[0]) % 13
	data = data[1:]
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	calls := make([]refs.CallIO, n)
	for i := range calls {
		h := next()
		if h&1 == 1 {
			w := fuzzPath(next())
			w.Root = refs.RootState
			calls[i].Write = &w
		}
		for range int(h >> 1 & 3) {
			calls[i].Reads = append(calls[i].Reads, fuzzPath(next()))
		}
	}
	return calls
}

func overlapsAny(reads []refs.Path, w refs.Path) bool {
	for _, r := range reads {
		if r.Overlaps(w) {
			return true
		}
	}
	return false
}

func FuzzPlan(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 1, 0, 3, 1, 0, 2, 0})                   // a little chain
	f.Add([]byte{2, 3, 0, 0, 3, 0, 0})                      // self-references
	f.Add([]byte{4, 3, 0, 1, 3, 1, 0, 3, 0x11, 1, 2, 0xC0}) // cycle and input
	f.Add([]byte{12, 7, 1, 2, 3, 7, 4, 5, 6, 7, 7, 8, 9, 10, 7, 11, 12, 13, 7, 14, 15, 16, 7, 0x21, 0x22, 0x23})
	f.Fuzz(func(t *testing.T, data []byte) {
		calls := fuzzCalls(data)
		deps, cyclic := refs.Plan(calls)
		n := len(calls)
		require.Len(t, deps, n)
		require.Len(t, cyclic, n)

		for i := range n {
			// deps[i] is exactly the other writers of a path call i reads, in order.
			var want []int
			for j, w := range calls {
				if j != i && w.Write != nil && overlapsAny(calls[i].Reads, *w.Write) {
					want = append(want, j)
				}
			}
			require.Equal(t, want, deps[i], "deps of call %d", i)
			require.NotContains(t, deps[i], i)

			// cyclic[i] iff call i reads its own write or can reach itself.
			self := calls[i].Write != nil && overlapsAny(calls[i].Reads, *calls[i].Write)
			seen := make([]bool, n)
			stack := append([]int(nil), deps[i]...)
			returns := false
			for len(stack) > 0 {
				v := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if v == i {
					returns = true
					break
				}
				if seen[v] {
					continue
				}
				seen[v] = true
				stack = append(stack, deps[v]...)
			}
			if !cyclic[i] {
				require.False(t, returns, "call %d is not cyclic but its deps lead back to it", i)
			}
			require.Equal(t, self || returns, cyclic[i], "cyclic[%d]", i)
		}
	})
}
