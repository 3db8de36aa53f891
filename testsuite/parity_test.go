package testsuite

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The parity matrix: each capability runs as a free-form agent and as an
// equivalent graph, on the real server with the worker binary
// (newBinaryStack), and the test prints which cells passed. Whatever
// works in one shape must work in the other.

// The run shapes of a parity cell.
const (
	freeForm = "free-form"
	graph    = "graph"
)

// parityCell is one capability in one run shape; variant names one of
// several cells of a capability in a shape.
type parityCell struct {
	capability, shape, variant string
	run                        func(t *testing.T)
}

// runParity runs the cells side by side as subtests named
// capability/shape[/variant], then logs the matrix: a row per capability, a column
// per shape (a capability with several cells in one shape shows each).
func runParity(t *testing.T, cells []parityCell) {
	var mu sync.Mutex
	marks := map[string]map[string][]string{}
	var rows []string
	for _, c := range cells {
		if marks[c.capability] == nil {
			marks[c.capability] = map[string][]string{}
			rows = append(rows, c.capability)
		}
	}
	t.Cleanup(func() { t.Log(parityMatrix(rows, marks)) })
	for _, c := range cells {
		name := c.capability + "/" + c.shape
		if c.variant != "" {
			name += "/" + c.variant
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mark := "FAIL"
			defer func() {
				if !t.Failed() {
					mark = "pass"
				}
				if c.variant != "" {
					mark = c.variant + ": " + mark
				}
				mu.Lock()
				marks[c.capability][c.shape] = append(marks[c.capability][c.shape], mark)
				mu.Unlock()
			}()
			c.run(t)
		})
	}
}

func parityMatrix(rows []string, marks map[string]map[string][]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-40s | %-44s | %s\n", "capability", freeForm, graph)
	for _, row := range rows {
		fmt.Fprintf(&b, "%-40s | %-44s | %s\n", row, strings.Join(sorted(marks[row][freeForm]), ", "), strings.Join(sorted(marks[row][graph]), ", "))
	}
	return b.String()
}

func sorted(marks []string) []string {
	slices.Sort(marks)
	return marks
}
