package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Visible is s with every character a terminal would act on written as
// an escape a person can read: C0 and C1 controls and DEL as \x1b or
// \u009b (a carriage return as \r), bidi controls as \u202e, a byte that
// is not UTF-8 as \xff. New lines and tabs stay: a caller that wants one
// line collapses them first. Text with nothing to escape is returned as
// it is.
func Visible(s string) string { return rewrite(s, textEscape) }

// VisibleJSON is Visible for JSON text: each character a terminal would
// act on is written as a JSON escape (\u001b, \u202e), so the JSON reads
// back the same, and a byte that is not UTF-8 as \ufffd, as a JSON
// decoder reads it. Valid JSON holds such characters only inside strings,
// where these escapes mean what they replace (a carriage return, white
// space outside them, stays).
func VisibleJSON(s string) string { return rewrite(s, jsonEscape) }

// rewrite is s with each character a terminal acts on replaced by esc of
// it; a byte that is not UTF-8 comes to esc as utf8.RuneError with bad
// set to the byte.
func rewrite(s string, esc func(r rune, bad byte) string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(esc(r, s[i]))
		case actedOn(r):
			b.WriteString(esc(r, 0))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the byte offset of the first character Visible escapes,
// or -1.
func firstUnsafe(s string) int {
	for i, r := range s {
		if actedOn(r) || (r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD")) {
			return i
		}
	}
	return -1
}

// actedOn reports whether a terminal would act on r rather than show it.
func actedOn(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f: // C0, DEL
		return true
	case r >= 0x80 && r <= 0x9f: // C1: U+009B is a CSI
		return true
	}
	return bidi(r)
}

// bidi reports whether r is a bidirectional control: an embedding,
// override or isolate (U+202A to U+202E, U+2066 to U+2069) or a mark
// (U+200E, U+200F, U+061C), which reorder or hide what follows.
func bidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

func textEscape(r rune, bad byte) string {
	switch {
	case r == utf8.RuneError:
		return fmt.Sprintf(`\x%02x`, bad)
	case r == '\r':
		return `\r`
	case r < 0x80:
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

func jsonEscape(r rune, _ byte) string {
	if r == '\r' {
		return "\r" // outside a string (where alone it can be) it is white space
	}
	return fmt.Sprintf(`\u%04x`, r)
}
