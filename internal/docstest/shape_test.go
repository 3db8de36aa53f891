package docstest_test

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/docstest"
)

// readmeMaxLines keeps the README a front door: the manual is in docs/.
const readmeMaxLines = 200

// The README is short and links to every page of docs/; every page opens
// with its title and a line saying what it is for; no page points outside
// the repository's own files for what a user needs.
func TestDocsShape(t *testing.T) {
	ps := pages(t)
	require.Equal(t, "README.md", ps[0].Path)
	readme := ps[0]
	require.LessOrEqual(t, len(readme.Lines), readmeMaxLines, "README.md is the front door: move detail to a page of docs/")

	linked := map[string]bool{}
	for _, l := range readme.Links() {
		linked[strings.SplitN(l.Target, "#", 2)[0]] = true
	}
	for _, p := range ps {
		text := strings.Join(p.Lines, "\n")
		require.NotContains(t, text, "../shared", "%s: the project stands alone", p.Path)
		if p.Path == "README.md" {
			continue
		}
		require.True(t, linked[p.Path], "%s is not in the README's map of docs/", p.Path)
		require.GreaterOrEqual(t, len(p.Lines), 3, p.Path)
		require.True(t, strings.HasPrefix(p.Lines[0], "# "), "%s:1: a page starts with its title, not %q", p.Path, p.Lines[0])
		require.Empty(t, p.Lines[1], "%s:2", p.Path)
		purpose := p.Lines[2]
		require.False(t, purpose == "" || strings.HasPrefix(purpose, "#") || strings.HasPrefix(purpose, "```") || strings.HasPrefix(purpose, "|"),
			"%s:3: a page says what it is for right under its title, not %q", p.Path, purpose)
		require.Equal(t, ".md", path.Ext(p.Path))
	}
}

// The code's comments, help texts and error messages point users at pages
// of docs/ by path: each such page exists.
func TestDocsPagesTheCodeNamesExist(t *testing.T) {
	root := docstest.Root()
	named := regexp.MustCompile(`docs/[a-z0-9-]+\.md`)
	count := 0
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && p != root && (e.Name() == "bin" || e.Name() == "artifacts" || strings.HasPrefix(e.Name(), ".")) {
			return filepath.SkipDir
		}
		// This package's own tests name made-up pages on purpose.
		if e.IsDir() || !strings.HasSuffix(p, ".go") || filepath.Base(filepath.Dir(p)) == "docstest" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, page := range named.FindAllString(string(data), -1) {
			count++
			_, err := os.Stat(filepath.Join(root, page))
			require.NoError(t, err, "%s names %s, which does not exist", p, page)
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, count, 20, "the code names its pages (the package docs do)")
}
