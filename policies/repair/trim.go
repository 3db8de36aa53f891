package repair

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// trim shortens a string to max characters (as JSON Schema counts them:
// code points). Surrounding space goes first, since it carries nothing;
// then the tail, and the space the cut leaves at the end unless that
// would go below min.
func trim(v any, max, min int) (string, string, bool) {
	s, ok := v.(string)
	if !ok || max < 0 || utf8.RuneCountInString(s) <= max {
		return "", "", false
	}
	if t := strings.TrimSpace(s); utf8.RuneCountInString(t) <= max {
		return t, "surrounding space removed to fit the maximum length", true
	}
	cut := s
	n := 0
	for i := range s {
		if n == max {
			cut = s[:i]
			break
		}
		n++
	}
	if t := strings.TrimRightFunc(cut, unicode.IsSpace); utf8.RuneCountInString(t) >= min && t != "" {
		cut = t
	}
	return cut, "cut to the maximum length", true
}
