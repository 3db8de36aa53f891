package docstest_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/docstest"
)

// packageRow is a row of a layer's table: | `internal/feed` | what it owns |
var packageRow = regexp.MustCompile("^\\| `([^`]+)` \\| (.*\\S) \\|$")

// layersOnPage reads the "Packages, by layer" section of
// docs/architecture.md: each package's layer, 0 the top one, and where it
// is listed.
func layersOnPage(t *testing.T) (layer map[string]int, names []string, where map[string]string) {
	t.Helper()
	var page docstest.Page
	for _, p := range pages(t) {
		if p.Path == "docs/architecture.md" {
			page = p
		}
	}
	require.NotEmpty(t, page.Lines, "docs/architecture.md is read")
	layer, where = map[string]int{}, map[string]string{}
	in, at := false, -1
	for i, line := range page.Lines {
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Packages, by layer"
		case !in:
		case strings.HasPrefix(line, "### "):
			at++
			names = append(names, strings.TrimPrefix(line, "### "))
		default:
			m := packageRow.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			here := fmt.Sprintf("%s:%d", page.Path, i+1)
			if before, ok := where[m[1]]; ok {
				t.Errorf("%s lists %s again (first at %s)", here, m[1], before)
			}
			require.GreaterOrEqual(t, at, 0, "%s: a package listed before the first layer's heading", here)
			layer[m[1]], where[m[1]] = at, here
		}
	}
	require.Greater(t, len(names), 3, "docs/architecture.md has a \"## Packages, by layer\" section with a ### heading per layer")
	return layer, names, where
}

func TestArchitectureListsEveryPackage(t *testing.T) {
	layer, names, where := layersOnPage(t)
	pkgs, err := docstest.Packages(docstest.Root())
	require.NoError(t, err)
	exists := map[string]bool{}
	for _, p := range pkgs {
		exists[p.Dir] = true
		own, ok := layer[p.Dir]
		if !ok {
			t.Errorf("package %s is not listed in docs/architecture.md, \"Packages, by layer\": add a row `%s` with what it owns to its layer", p.Dir, p.Dir)
			continue
		}
		for _, imp := range p.Imports {
			if l, ok := layer[imp]; ok && l < own {
				t.Errorf("%s (layer %q, %s) imports %s of a higher layer (%q, %s): an import runs back up", p.Dir, names[own], where[p.Dir], imp, names[l], where[imp])
			}
		}
	}
	for name, at := range where {
		if !exists[name] {
			t.Errorf("%s lists %s, which is no package of the module", at, name)
		}
	}
	require.Greater(t, len(pkgs), 20, "the module's packages were read")
}
