package policies

import "unicode/utf8"

// Texts are bounded two ways: in bytes where the bound is a size (a
// payload's, a search attribute's, a message to a model), and in
// characters where people read the text (summaries, tables).

// CutText is the first n bytes of s at most, not splitting a character
// (n below 0 is 0).
func CutText(s string, n int) string {
	if n >= len(s) {
		return s
	}
	cut := max(n, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// ClipText is s cut to at most n characters (n at least 1), "…" marking
// the cut and counted in n.
func ClipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
