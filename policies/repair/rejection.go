package repair

import (
	"slices"
	"sort"
	"strings"
)

// Hint is one parameter problem a tool's rejection message names: which
// parameter (Field, as the message writes it; "" when it names none) and
// what is wrong with it (Kind). Values are the allowed values of an
// "enum" hint, the expected type of a "type" hint, the pattern of a
// "pattern" hint; Bound is the number of a "min" or "max" hint, which
// Exclusive marks when the bound itself is not allowed ("> 0").
type Hint struct {
	Field     string
	Kind      string
	Values    []string
	Bound     string
	Exclusive bool
}

// The kinds of Hint.
const (
	HintDate    = "date"
	HintMissing = "missing"
	HintMin     = "min"
	HintMax     = "max"
	HintEnum    = "enum"
	HintType    = "type"
	HintPattern = "pattern"
)

// Bounds on reading a message: tool errors are short, and a long one is
// read only so far.
const (
	maxMessageLen = 8 << 10
	maxHints      = 32
)

// ParseRejection reads the parameter problems a tool's error message
// names, case-insensitively, with the parameter quoted ('x', "x", `x`)
// or not: "invalid date format for 'x'", "missing required parameter
// 'x'", "value for 'x' must be >= 1" (and <=, >, <, at least, at most,
// between a and b), "'x' must be one of [a, b]", "'x' has invalid type",
// "expected integer for 'x'", "'x' does not match pattern p". Hints come
// in the order the message gives them, each once.
func ParseRejection(message string) []Hint {
	if len(message) > maxMessageLen {
		message = message[:maxMessageLen]
	}
	lower := strings.ToLower(message)
	var all []match
	for ri, r := range rules {
		if !slices.ContainsFunc(r.words, func(w string) bool { return strings.Contains(lower, w) }) {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(message, maxHints) {
			v := r.values(message, m)
			if v == nil {
				continue
			}
			if hs := r.build(v); len(hs) > 0 {
				all = append(all, match{at: m[0], end: m[1], rule: ri, hints: hs})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].at != all[j].at {
			return all[i].at < all[j].at
		}
		return all[i].rule < all[j].rule
	})
	var out []Hint
	for _, m := range all {
		if m.shadowed(all) {
			continue
		}
		for _, h := range m.hints {
			j := slices.IndexFunc(out, h.same)
			switch {
			case j < 0 && len(out) < maxHints:
				out = append(out, h)
			case j >= 0 && out[j].Field == "":
				out[j] = h // the same, now with a name
			}
		}
	}
	return out
}

// match is where a rule matched a message, and what it read there.
type match struct {
	at, end, rule int
	hints         []Hint
}

// shadowed reports whether m overlaps a match of the same kind by an
// earlier, more specific, rule: "Error in booking: invalid date format
// for 'x'" is about x, not about "booking".
func (m match) shadowed(all []match) bool {
	for _, o := range all {
		if o.rule < m.rule && o.hints[0].Kind == m.hints[0].Kind && o.at < m.end && m.at < o.end {
			return true
		}
	}
	return false
}

// same reports whether two hints say the same thing. A hint without a
// field says nothing more than one with a field and the same content.
func (h Hint) same(o Hint) bool {
	if h.Kind != o.Kind || h.Bound != o.Bound || h.Exclusive != o.Exclusive || !slices.Equal(h.Values, o.Values) {
		return false
	}
	return h.Field == o.Field || h.Field == "" || o.Field == ""
}

// cleanField turns a bare parameter name into a field: trailing sentence
// punctuation off, and words that are not parameter names dropped.
func cleanField(f string) string {
	f = strings.TrimRight(f, ".,;:!?")
	switch strings.ToLower(f) {
	case "value", "values", "it", "this", "that", "the", "input", "parameter", "param", "field",
		"argument", "property", "key", "request", "body", "error", "":
		return ""
	}
	return f
}

// splitList reads an allowed-values list: "[a, b]", "(a|b)", "'a', 'b'
// or 'c'", quotes optional.
func splitList(s string) []string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && strings.ContainsRune("[({", rune(s[0])) {
		s = s[1:]
		s = strings.TrimRight(s, "])} ")
	}
	s = strings.NewReplacer(" or ", ",", " and ", ",", "|", ",", "/", ",").Replace(s)
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.Trim(strings.TrimSpace(p), `'"`+"`")
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// typeName maps the type words of messages to JSON Schema's.
func typeName(w string) string {
	switch strings.ToLower(w) {
	case "int", "integer":
		return "integer"
	case "float", "double", "number", "decimal":
		return "number"
	case "str", "string", "text":
		return "string"
	case "bool", "boolean":
		return "boolean"
	case "list", "array":
		return "array"
	case "dict", "map", "object":
		return "object"
	}
	return ""
}
