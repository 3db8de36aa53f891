package docstest

import (
	"strings"
)

// A shell block that runs may be followed by what it prints: a ```text
// block right after it (nothing but blank lines between). Its lines are
// what the commands print, each as a whole line, but for what differs
// from one run to the next (an id, a time), written as "…".

// OutputOf is the ```text block right after b, the output b shows; ok is
// false when b is followed by anything else.
func (p Page) OutputOf(b Block) (out Block, ok bool) {
	end := b.Line + strings.Count(b.Body, "\n") + 1 // the closing fence's line, 1-based
	for _, next := range p.Blocks() {
		if next.Line <= end {
			continue
		}
		for _, between := range p.Lines[end : next.Line-1] {
			if strings.TrimSpace(between) != "" {
				return Block{}, false
			}
		}
		return next, next.Lang == "text"
	}
	return Block{}, false
}

// NotPrinted are the lines of shown (its blank lines aside) that are not
// a line of printed: lines compare with their leading and trailing spaces
// trimmed, and "…" in a shown line stands for any text.
func NotPrinted(shown, printed string) []string {
	lines := strings.Split(printed, "\n")
	var missing []string
	for _, want := range strings.Split(shown, "\n") {
		want = strings.TrimSpace(want)
		if want == "" {
			continue
		}
		found := false
		for _, l := range lines {
			if found = lineMatches(want, strings.TrimSpace(l)); found {
				break
			}
		}
		if !found {
			missing = append(missing, want)
		}
	}
	return missing
}

// lineMatches says whether line is pattern, each "…" of it standing for
// any text.
func lineMatches(pattern, line string) bool {
	parts := strings.Split(pattern, "…")
	if len(parts) == 1 {
		return pattern == line
	}
	if !strings.HasPrefix(line, parts[0]) || !strings.HasSuffix(line[len(parts[0]):], parts[len(parts)-1]) {
		return false
	}
	rest := line[len(parts[0]) : len(line)-len(parts[len(parts)-1])]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, part)
		if i < 0 {
			return false
		}
		rest = rest[i+len(part):]
	}
	return true
}
