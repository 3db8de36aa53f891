package repair

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lists written as text where an array is wanted (strategy split_list):
// "ana@example.com, bo@example.com", "a; b", one item a line. The rule
// splits on the separator the text uses: newlines when it has any, else
// semicolons when it has any, else commas (a quoted item keeps its
// separators: `"Smith, J", "Doe, A"`). It is certain only when
//
//   - the text is at most maxListText bytes of valid UTF-8 and gives at
//     most maxListItems items, none of them empty (a trailing separator
//     is allowed) and none joined by a word ("red, green and blue");
//   - for items that are numbers, no comma could be a thousands separator
//     or a decimal comma: every comma is followed by a space ("1, 250"),
//     or none is and the text is not one grouped number ("1,2,3" but not
//     "1,250" or "2,5");
//   - for free-text items (strings the item schema neither lists nor
//     patterns: no enum, const, pattern or format; a maxLength does not
//     say where an item ends), split on commas or semicolons, every item
//     is one plain word (plainWord: "kitchen, steel, gift",
//     "ana@example.com; bo@example.com"). A comma or semicolon between
//     words may be inside one item ("Met at the expo, wants a demo" is
//     one note), and one inside a token with syntax of its own
//     ("--format=%(name)s,%(levelname)s", "-Wl,-rpath,/opt") belongs to
//     it; nothing in the schema tells them apart from a list. Lines
//     still split free text: a line break does not occur inside an item
//     the way a comma does;
//   - the items, as the array, then fit the schema, after the repairs the
//     rules make with certainty ("Books, home" to ["books", "home"]);
//   - the whole text is not also one allowed item of an item schema that
//     lists or patterns its values.
//
// A text with no separator is one value and is wrapped ("a" to ["a"])
// when it is one word, or when it is several words ("New York") and the
// item schema lists or patterns its values and the text then fits it.
// Several words for a free-text item are not wrapped: "-v -x tests/unit"
// may be three shell words or one argument, "New York" one city or two
// words; the model is asked. A text with a separator that cannot be
// split with certainty is not wrapped either: wrapping "a, b" into
// ["a, b"] passes the schema and is wrong.
//
// The first rules (RulesFirst) wrapped every text whole.

// Bounds on the text split and the items made.
const (
	maxListText  = 16 << 10
	maxListItems = 256
)

// hasListSeparator reports whether text holds a separator of a list.
func hasListSeparator(t string) bool {
	return strings.ContainsAny(t, ",;\n")
}

// splitText splits a list written as text; sep names the separator.
func splitText(t string) (items []string, sep string, ok bool) {
	t = strings.TrimSpace(strings.ReplaceAll(t, "\r\n", "\n"))
	if len(t) > maxListText || !utf8.ValidString(t) {
		return nil, "", false
	}
	switch {
	case strings.Contains(t, "\n"):
		items, ok = splitLines(t)
		sep = "newlines"
	case strings.Contains(t, ";"):
		items, ok = splitFields(t, ';')
		sep = "semicolons"
	default:
		items, ok = splitFields(t, ',')
		sep = "commas"
	}
	if !ok || len(items) == 0 || len(items) > maxListItems {
		return nil, "", false
	}
	if sep != "newlines" && joinedByWord(items) {
		return nil, "", false
	}
	return items, sep, true
}

// splitFields splits one line on sep, with CSV's quoting (encoding/csv):
// one record, items trimmed, a trailing empty item dropped, no other
// empty item.
func splitFields(t string, sep rune) ([]string, bool) {
	r := csv.NewReader(strings.NewReader(t))
	r.Comma, r.TrimLeadingSpace, r.FieldsPerRecord = sep, true, -1
	rec, err := r.Read()
	if err != nil {
		return nil, false
	}
	if _, err := r.Read(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	if len(rec) > 1 && strings.TrimSpace(rec[len(rec)-1]) == "" {
		rec = rec[:len(rec)-1]
	}
	out := make([]string, 0, len(rec))
	for _, f := range rec {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, false
		}
		out = append(out, f)
	}
	return out, true
}

// splitLines splits text into its non-blank lines, trimmed, without the
// bullet ("- ", "* ", "• ") every line starts with, if they all do.
func splitLines(t string) ([]string, bool) {
	var out []string
	for _, l := range strings.Split(t, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
		if len(out) > maxListItems {
			return nil, false
		}
	}
	for _, bullet := range []string{"- ", "* ", "• "} {
		all := true
		for _, l := range out {
			all = all && strings.HasPrefix(l, bullet)
		}
		if all {
			for i, l := range out {
				out[i] = strings.TrimSpace(strings.TrimPrefix(l, bullet))
				if out[i] == "" {
					return nil, false
				}
			}
			break
		}
	}
	return out, true
}

// joinedByWord reports a list whose items a word joins: "red, green and
// blue" (is the last item "green and blue"?), "a, or b".
func joinedByWord(items []string) bool {
	for i, it := range items {
		l := strings.ToLower(it)
		for _, w := range []string{"and ", "or ", "& "} {
			if strings.HasPrefix(l, w) {
				return true
			}
			if i == len(items)-1 && strings.Contains(l, " "+w) {
				return true
			}
		}
	}
	return false
}

// numbersSplitCertain reports whether commas separate numbers in t with
// certainty (see above); other separators always do.
func numbersSplitCertain(t, sep string) bool {
	if sep != "commas" {
		return true
	}
	t = strings.TrimSuffix(strings.TrimSpace(t), ",")
	spaced, bare := 0, 0
	for i := 0; i < len(t); i++ {
		if t[i] != ',' {
			continue
		}
		if i+1 < len(t) && (t[i+1] == ' ' || t[i+1] == '\t') {
			spaced++
		} else {
			bare++
		}
	}
	switch {
	case bare == 0:
		return true
	case spaced > 0 || bare < 2:
		return false
	}
	_, _, oneNumber := ungroup(t)
	return !oneNumber
}

// oneWord reports a text, trimmed, that holds no separator of a list and
// no space: one value whatever the item schema.
func oneWord(t string) bool {
	return !hasListSeparator(t) && !strings.ContainsFunc(strings.TrimSpace(t), unicode.IsSpace)
}

// plainWord reports an item that is one plain word: it starts with a
// letter or digit and holds only letters, digits, marks and the joiners
// of names, addresses and paths (. _ - ' @ + /). Anything else (= % ( )
// [ ] { } : " $ * \ | & and so on), or a leading "-" (a command-line
// option: "-Wl,-rpath"), is syntax in which a comma may be one
// character of the item.
func plainWord(s string) bool {
	for i, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
		case i == 0:
			return false
		case unicode.IsMark(r) || strings.ContainsRune("._-'@+/", r):
		default:
			return false
		}
	}
	return s != ""
}
