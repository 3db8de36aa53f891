package repair

import (
	"encoding/json"
	"strings"
)

// lenientJSON rewrites the JSON dialects models write into JSON: strings
// in single quotes (Python's repr, JSON5), // and /* */ comments, a comma
// before a closing bracket, Python's True, False and None, and control
// characters (a raw newline) inside a string. It answers the JSON and
// what it changed, or false.
//
// Certain when: nothing but those differs from JSON, so no value is
// invented, dropped or reinterpreted. Anything else is refused, because
// fixing it is a guess: a missing bracket or quote (the text was cut
// off), unquoted keys, NaN, two values side by side, an escape JSON does
// not have (\x41).
//
// Hand-written rather than a library's: the lenient-JSON libraries at
// hand (jsonrepair ports) repair everything they can, closing a string
// or object that was cut off, inserting commas, turning NaN into "NaN",
// with no way to ask for only the certain rewrites. This is one linear
// pass over text the caller has already bounded (MaxBytes, valid UTF-8).
func lenientJSON(text string) (string, []string, bool) {
	l := lenient{in: text}
	if !l.scan() {
		return "", nil, false
	}
	out := l.out.String()
	var fixes []string
	for f, made := range l.fixes {
		if made {
			fixes = append(fixes, fixNames[f])
		}
	}
	if len(fixes) == 0 || !json.Valid([]byte(out)) {
		return "", nil, false
	}
	return out, fixes, true
}

// The rewrites lenientJSON makes.
const (
	fixComments = iota
	fixControl
	fixPython
	fixSingleQuotes
	fixTrailingComma
	fixCount
)

// fixNames name the rewrites in a repair's reason, in this order.
var fixNames = [fixCount]string{
	fixComments:      "comments",
	fixControl:       "raw control characters in strings",
	fixPython:        "Python's True/False/None",
	fixSingleQuotes:  "single-quoted strings",
	fixTrailingComma: "trailing commas",
}

// lenient is one scan: in is read once, left to right.
type lenient struct {
	in    string
	i     int
	out   strings.Builder
	fixes [fixCount]bool
	// last is the last significant byte written (0 at the start).
	last byte
}

func (l *lenient) scan() bool {
	l.out.Grow(len(l.in) + len(l.in)/8)
	for l.i < len(l.in) {
		c := l.in[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.out.WriteByte(c)
			l.i++
		case c == '/' && l.i+1 < len(l.in) && (l.in[l.i+1] == '/' || l.in[l.i+1] == '*'):
			if !l.comment() {
				return false
			}
		case c == ',':
			if valueEnd(l.last) && l.closerNext(l.i+1) {
				l.fixes[fixTrailingComma] = true
			} else {
				l.emit(c)
			}
			l.i++
		case c == '"' || c == '\'':
			if !l.str(c) {
				return false
			}
		case isWordByte(c):
			l.word()
		default:
			l.emit(c)
			l.i++
		}
	}
	return true
}

// closerNext reports whether a closing bracket is the next byte from i
// that is not white space or a comment. Each byte is looked at at most
// twice (here, then by the scan), so the scan stays linear.
func (l *lenient) closerNext(i int) bool {
	for i < len(l.in) {
		switch c := l.in[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '/' && i+1 < len(l.in) && l.in[i+1] == '/':
			end := strings.IndexAny(l.in[i+2:], "\n\r")
			if end < 0 {
				return false
			}
			i += 2 + end
		case c == '/' && i+1 < len(l.in) && l.in[i+1] == '*':
			end := strings.Index(l.in[i+2:], "*/")
			if end < 0 {
				return false
			}
			i += 2 + end + 2
		default:
			return c == '}' || c == ']'
		}
	}
	return false
}

func (l *lenient) emit(c byte) {
	l.out.WriteByte(c)
	l.last = c
}

// valueEnd is whether a byte ends a value: a comma after it may trail.
func valueEnd(c byte) bool {
	return c == '"' || c == '}' || c == ']' || isWordByte(c)
}

// comment skips a // or /* */ comment, leaving a space in its place.
func (l *lenient) comment() bool {
	rest := l.in[l.i+2:]
	if l.in[l.i+1] == '/' {
		end := strings.IndexAny(rest, "\n\r")
		if end < 0 {
			end = len(rest)
		}
		l.i += 2 + end
	} else {
		end := strings.Index(rest, "*/")
		if end < 0 {
			return false // not closed: cut off, or not a comment
		}
		l.i += 2 + end + 2
	}
	l.out.WriteByte(' ')
	l.fixes[fixComments] = true
	return true
}

// isWordByte is a byte of a bare word: a number, true, false, null, or
// Python's True, False, None.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '+' || c == '-'
}

// pythonWords are Python's literals and their JSON.
var pythonWords = map[string]string{"True": "true", "False": "false", "None": "null"}

// word copies a bare word, rewriting Python's literals; any other word
// is copied as it is, for the final check to accept (a number) or refuse.
func (l *lenient) word() {
	j := l.i
	for j < len(l.in) && isWordByte(l.in[j]) {
		j++
	}
	w := l.in[l.i:j]
	if js, ok := pythonWords[w]; ok {
		w = js
		l.fixes[fixPython] = true
	}
	l.out.WriteString(w)
	l.last = w[len(w)-1]
	l.i = j
}

// jsonEscapes are the characters JSON allows after a backslash.
const jsonEscapes = `"\/bfnrtu`

// str copies a string quoted by q into a double-quoted JSON string.
func (l *lenient) str(q byte) bool {
	if q == '\'' {
		l.fixes[fixSingleQuotes] = true
	}
	l.out.WriteByte('"')
	for l.i++; l.i < len(l.in); l.i++ {
		c := l.in[l.i]
		switch {
		case c == q:
			l.emit('"')
			l.i++
			return true
		case c == '\\':
			if l.i+1 >= len(l.in) {
				return false
			}
			e := l.in[l.i+1]
			switch {
			case e == '\'' && q == '\'':
				l.out.WriteByte('\'')
			case strings.IndexByte(jsonEscapes, e) >= 0:
				l.out.WriteByte('\\')
				l.out.WriteByte(e)
			default:
				return false // \x41, \' in a JSON string, …: not JSON's
			}
			l.i++
		case c == '"': // only inside single quotes
			l.out.WriteString(`\"`)
		case c < 0x20:
			l.out.WriteString(controlEscape(c))
			l.fixes[fixControl] = true
		default:
			l.out.WriteByte(c)
		}
	}
	return false // not closed: the text was cut off
}

// controlEscape writes a control character as JSON does.
func controlEscape(c byte) string {
	switch c {
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	const hex = "0123456789abcdef"
	return `\u00` + string(hex[c>>4]) + string(hex[c&0xf])
}
