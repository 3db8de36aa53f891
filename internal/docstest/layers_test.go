package docstest_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/docstest"
)

// usersOfInternal are the packages built on internal/'s parts: the workflow,
// its activities and everything that composes or drives them. A part under
// internal/ that imported one would run back up the layers
// (docs/architecture.md, "Packages, by layer").
var usersOfInternal = []string{
	"activities", "workflows", "app", "eval", "load", "console", "starter", "worker", "testsuite", "bench",
}

func TestInternalImportsNothingAbove(t *testing.T) {
	pkgs, err := docstest.Packages(docstest.Root())
	require.NoError(t, err)
	var internal int
	for _, p := range pkgs {
		if !docstest.Within(p.Dir, "internal") {
			continue
		}
		internal++
		for _, imp := range p.Imports {
			for _, top := range usersOfInternal {
				if docstest.Within(imp, top) {
					t.Errorf("%s imports %s: a part under internal/ must not import the layers built on it (%s); move the part up out of internal/ or the shared piece down", p.Dir, imp, top)
				}
			}
		}
	}
	require.Greater(t, internal, 10, "the packages under internal/ were read")
}

// TestTopLevelFoldersImportOneWay reads the module's top-level folders as
// the layers a reader sees first: an import from one folder to another is
// on a loop when the other reaches the first back, and then neither folder
// is wholly above the other.
func TestTopLevelFoldersImportOneWay(t *testing.T) {
	pkgs, err := docstest.Packages(docstest.Root())
	require.NoError(t, err)
	top := func(dir string) string { return strings.SplitN(dir, "/", 2)[0] }
	// by is one import from folder to folder, kept with a package import that makes it.
	by := map[[2]string]string{}
	next := map[string][]string{}
	for _, p := range pkgs {
		for _, imp := range p.Imports {
			edge := [2]string{top(p.Dir), top(imp)}
			if edge[0] == edge[1] {
				continue
			}
			if _, ok := by[edge]; !ok {
				next[edge[0]] = append(next[edge[0]], edge[1])
				by[edge] = p.Dir + " imports " + imp
			}
		}
	}
	reaches := func(from, to string) bool {
		seen := map[string]bool{from: true}
		for todo := []string{from}; len(todo) > 0; {
			n := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			for _, m := range next[n] {
				if m == to {
					return true
				}
				if !seen[m] {
					seen[m] = true
					todo = append(todo, m)
				}
			}
		}
		return false
	}
	var edges [][2]string
	for edge := range by {
		edges = append(edges, edge)
	}
	sort.Slice(edges, func(i, j int) bool { return edges[i][0]+" "+edges[i][1] < edges[j][0]+" "+edges[j][1] })
	for _, edge := range edges {
		if reaches(edge[1], edge[0]) {
			t.Errorf("%s/ imports %s/ (%s), and %s/ reaches %s/ back: move the package to the folder of its layer", edge[0], edge[1], by[edge], edge[1], edge[0])
		}
	}
	require.Greater(t, len(edges), 20, "the imports between folders were read")
}
