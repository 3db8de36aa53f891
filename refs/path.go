package refs

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Prefix starts a Variable Reference (U+2020 DAGGER).
const Prefix = "†"

// Roots a reference may start from.
const (
	RootState = "state"
	RootInput = "input"
)

// Path is one location in the run's State or input: a root and at least
// one step (a map key, or an array index written as a number).
type Path struct {
	Root  string
	Steps []string
}

func (p Path) String() string {
	return Prefix + p.Root + "." + strings.Join(p.Steps, ".")
}

// Overlaps reports whether writing one path can change the value read at
// the other: same root, and one path is a prefix of the other.
func (p Path) Overlaps(q Path) bool {
	if p.Root != q.Root {
		return false
	}
	n := min(len(p.Steps), len(q.Steps))
	for i := 0; i < n; i++ {
		if p.Steps[i] != q.Steps[i] {
			return false
		}
	}
	return true
}

// runRoots are the roots of a run's references.
var runRoots = []string{RootState, RootInput}

// parsePath reads one alternative of a run's reference: †state.a.b or
// †input.x.
func parsePath(s string) (Path, error) { return parsePathIn(s, runRoots) }

// parsePathIn reads one alternative whose root is one of roots.
func parsePathIn(s string, roots []string) (Path, error) {
	// Spaces are allowed around "||" only.
	s = strings.Trim(s, " ")
	if !strings.HasPrefix(s, Prefix) {
		return Path{}, fmt.Errorf("%q does not start with %s", s, Prefix)
	}
	parts := strings.Split(strings.TrimPrefix(s, Prefix), ".")
	root := parts[0]
	if !slices.Contains(roots, root) {
		return Path{}, fmt.Errorf("%q: a reference starts with %s", s, rootList(roots))
	}
	steps := parts[1:]
	if len(steps) == 0 {
		return Path{}, fmt.Errorf("%q names no path after %s%s", s, Prefix, root)
	}
	for _, st := range steps {
		if st == "" || strings.ContainsFunc(st, badStepRune) {
			return Path{}, fmt.Errorf("%q has an empty or malformed step", s)
		}
	}
	return Path{Root: root, Steps: steps}, nil
}

// badStepRune refuses space, control characters and the alternative bar
// inside a path step.
func badStepRune(r rune) bool {
	return r == '|' || unicode.IsSpace(r) || unicode.IsControl(r)
}

// rootList names the roots a reference may start from: "†state." or "†input.".
func rootList(roots []string) string {
	quoted := make([]string, len(roots))
	for i, r := range roots {
		quoted[i] = fmt.Sprintf("%q", Prefix+r+".")
	}
	return strings.Join(quoted, " or ")
}
