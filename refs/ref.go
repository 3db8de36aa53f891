package refs

import (
	"fmt"
	"strings"
)

// Ref is a Variable Reference: one path, or alternatives of which the
// first that exists is used.
type Ref struct {
	Alts []Path
}

func (r Ref) String() string {
	parts := make([]string, len(r.Alts))
	for i, a := range r.Alts {
		parts[i] = a.String()
	}
	return strings.Join(parts, " || ")
}

// Parse reads a string argument. ok is false when it is not a reference at
// all (it does not start with †); err says why one that starts with † is
// malformed, so the model learns of a typo instead of sending it verbatim.
func Parse(s string) (ref Ref, ok bool, err error) { return parseIn(s, runRoots) }

// parseIn is Parse for references whose roots are roots.
func parseIn(s string, roots []string) (ref Ref, ok bool, err error) {
	// Exactly a reference: leading space makes it a literal string.
	if !strings.HasPrefix(s, Prefix) {
		return Ref{}, false, nil
	}
	for _, alt := range strings.Split(s, "||") {
		p, err := parsePathIn(alt, roots)
		if err != nil {
			return Ref{}, true, fmt.Errorf("malformed reference: %v", err)
		}
		ref.Alts = append(ref.Alts, p)
	}
	return ref, true, nil
}

// OutputPathArg is the optional argument every tool call gains: where in
// the run's State its result is written (one †state.<path>).
const OutputPathArg = "_outputPath"

// ParseOutputPath reads an _outputPath: a single †state.<path>.
func ParseOutputPath(s string) (Path, error) {
	if strings.Contains(s, "||") {
		return Path{}, fmt.Errorf("_outputPath %q must be one %sstate.<path>, not alternatives", s, Prefix)
	}
	p, err := parsePath(s)
	if err != nil {
		return Path{}, fmt.Errorf("_outputPath: %v", err)
	}
	if p.Root != RootState {
		return Path{}, fmt.Errorf("_outputPath %q must start with %sstate.: only State can be written", s, Prefix)
	}
	return p, nil
}
