package docstest_test

import (
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
