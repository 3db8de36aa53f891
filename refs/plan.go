package refs

// CallIO is what one call of a step reads (the paths of its references)
// and writes (its _outputPath, if any).
type CallIO struct {
	Reads []Path
	Write *Path
}

// Plan orders the calls of one step: deps[i] are the calls i must wait
// for (every other call writing a path that call i reads), and cyclic[i]
// says call i can never run because it waits, directly or through others,
// on itself. Two writers of one path are both waited for; what they write
// lands last-write-wins in completion order.
func Plan(calls []CallIO) (deps [][]int, cyclic []bool) {
	n := len(calls)
	deps = make([][]int, n)
	cyclic = make([]bool, n)
	for i, c := range calls {
		for j, w := range calls {
			if w.Write == nil || !readsAny(c.Reads, *w.Write) {
				continue
			}
			if i == j {
				cyclic[i] = true // reads its own output
				continue
			}
			deps[i] = append(deps[i], j)
		}
	}
	for _, scc := range components(deps) {
		if len(scc) > 1 {
			for _, i := range scc {
				cyclic[i] = true
			}
		}
	}
	return deps, cyclic
}

func readsAny(reads []Path, w Path) bool {
	for _, r := range reads {
		if r.Overlaps(w) {
			return true
		}
	}
	return false
}

// components is Tarjan's strongly connected components over the
// dependency edges; a component of more than one call is a cycle.
func components(edges [][]int) [][]int {
	n := len(edges)
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range edges[v] {
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var scc []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				scc = append(scc, w)
				if w == v {
					break
				}
			}
			out = append(out, scc)
		}
	}
	for v := 0; v < n; v++ {
		if index[v] < 0 {
			visit(v)
		}
	}
	return out
}
