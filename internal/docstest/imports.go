package docstest

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Package is one package of the module as its source says, read without
// the go tool so the layer tests need nothing but the tree.
type Package struct {
	Dir string // relative to the root, with slashes: workflows, internal/feed
	// Imports are the module's packages its non-test files import, as Dirs.
	// Test files may reach higher (a docs test loads configs as app does).
	Imports []string
}

// Packages reads every directory under root holding Go files (testdata,
// hidden and underscore directories skipped, as the go tool does). A
// directory with test files only is a package with no imports.
func Packages(root string) ([]Package, error) {
	module, err := modulePath(root)
	if err != nil {
		return nil, err
	}
	byDir := map[string]map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(rel)
		if byDir[dir] == nil {
			byDir[dir] = map[string]bool{}
		}
		if strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: import %s: %w", path, spec.Path.Value, err)
			}
			if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				byDir[dir][rest] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var pkgs []Package
	for dir, imports := range byDir {
		p := Package{Dir: dir}
		for imp := range imports {
			p.Imports = append(p.Imports, imp)
		}
		sort.Strings(p.Imports)
		pkgs = append(pkgs, p)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Dir < pkgs[j].Dir })
	return pkgs, nil
}

// Within says whether dir is the package top or one under it.
func Within(dir, top string) bool {
	return dir == top || strings.HasPrefix(dir, top+"/")
}

func modulePath(root string) (string, error) {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.TrimSpace(rest), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", filepath.Join(root, "go.mod"))
}
