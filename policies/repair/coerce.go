package repair

import (
	"encoding/json"
	"fmt"
	"strings"
)

// coercion is what converting one value may look at besides the value:
// the rule set, the schema at its location (a percentage's scale), the
// object holding it (a sibling currency) and, for a list written as text,
// a check that its items fit the schema. The zero value is the newest
// rules with nothing known about the location: a percentage is not read
// and a text holding a separator or several words is not made an array.
type coercion struct {
	rules    RuleSet
	ns       nodes
	siblings map[string]any
	self     string
	// list makes the array at the location from a text holding a
	// separator or several words, when that is certain (lists.go,
	// textToArray); nil: never.
	list func(s string) (coerced, bool)
}

// coerced is a converted value, the strategy that converted it and why.
type coerced struct {
	value    any
	strategy string
	why      string
}

// coerceType converts v to the first type of want it converts to with
// certainty, knowing nothing of its location (see coercion).
func coerceType(v any, want []string) (any, string, bool) {
	out, ok := coercion{}.convert(v, want)
	return out.value, out.why, ok
}

// convert converts v to the first type of want it converts to
// losslessly and with certainty: "2" to 2, "yes" to true, 3 to "3", a
// single value to a one-item array and back, a JSON text in a string to
// what it encodes, "$1,250.50" to 1250.5, "a, b" to ["a", "b"]. A number
// that is not whole never becomes an integer: rounding is a judgement.
func (c coercion) convert(v any, want []string) (coerced, bool) {
	for _, w := range want {
		if out, ok := c.to(v, w); ok {
			if out.strategy == "" {
				out.strategy = StrategyCoerceType
			}
			return out, true
		}
	}
	return coerced{}, false
}

func (c coercion) to(v any, want string) (coerced, bool) {
	switch v := v.(type) {
	case string:
		return c.fromString(v, want)
	case json.Number:
		switch want {
		case "string":
			return coerced{value: string(v), why: "a number where a string is wanted: its text"}, true
		case "array":
			return wrapped(v), true
		case "boolean":
			if b, ok := boolNumber(v); ok && c.rules != RulesFirst {
				return coerced{value: b, why: "a boolean written as 0 or 1"}, true
			}
		}
	case bool:
		switch want {
		case "string":
			return coerced{value: fmt.Sprint(v), why: "a boolean where a string is wanted: its text"}, true
		case "array":
			return wrapped(v), true
		}
	case map[string]any:
		if want == "array" {
			return wrapped(v), true
		}
	case []any:
		if len(v) == 1 && want != "array" {
			if jsonType(v[0], want) {
				return coerced{value: v[0], why: "a one-item array where a single " + want + " is wanted: unwrapped"}, true
			}
			inner := c
			inner.list = nil
			if out, ok := inner.to(v[0], want); ok {
				return coerced{value: out.value, why: "a one-item array where a single " + want + " is wanted: unwrapped and converted"}, true
			}
		}
	}
	return coerced{}, false
}

func wrapped(v any) coerced {
	return coerced{value: []any{v}, why: "a single value where an array is wanted: wrapped"}
}

func (c coercion) fromString(s, want string) (coerced, bool) {
	t := strings.TrimSpace(s)
	switch want {
	case "integer", "number":
		if r, ok := parseNumber(t); ok && (want == "number" || r.IsInt()) {
			// A number keeps its text when JSON can hold it ("2868.70"
			// stays so); "+5", "007" and ".5" are rewritten.
			if want == "number" && json.Valid([]byte(t)) {
				return coerced{value: json.Number(t), why: "a number written as a string"}, true
			}
			return coerced{value: ratNumber(r), why: "a number written as a string"}, true
		}
		if c.rules != RulesFirst {
			return c.readNumber(t, want)
		}
	case "boolean":
		if b, ok := boolWord(t, c.rules == RulesFirst); ok {
			return coerced{value: b, why: "a boolean written as a string"}, true
		}
	case "array", "object":
		if strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
			if dec, ok := embeddedJSON(t, want); ok {
				return coerced{value: dec, why: "JSON written as a string: decoded"}, true
			}
			return coerced{}, false
		}
		switch {
		case want != "array":
		case c.rules == RulesFirst || oneWord(t):
			return wrapped(s), true
		case c.list != nil:
			return c.list(s)
		}
	}
	return coerced{}, false
}

// readNumber reads a number as people write it (written.go) as the
// integer or number the schema wants, or answers false.
func (c coercion) readNumber(t, want string) (coerced, bool) {
	w, ok := readWritten(t)
	if !ok {
		return coerced{}, false
	}
	var notes []string
	if w.currency != "" {
		if currencyConflict(c.siblings, c.self, w.currency) {
			return coerced{}, false
		}
		notes = append(notes, "the currency "+w.currency+" dropped")
	}
	if w.grouped {
		notes = append(notes, "the thousands separators dropped")
	}
	r := w.value
	if w.percent {
		divide, why, ok := percentScale(c.ns)
		if !ok {
			return coerced{}, false
		}
		if divide {
			r.Quo(r, bigHundred)
		}
		notes = append(notes, why)
	}
	if want == "integer" && !r.IsInt() {
		return coerced{}, false
	}
	return coerced{value: ratNumber(r), strategy: StrategyReadNumber,
		why: "a number written as people write it: " + strings.Join(notes, ", ")}, true
}

// embeddedJSON decodes JSON text a model put in a string, when it is an
// array or object of bounded depth.
func embeddedJSON(t, want string) (any, bool) {
	if !json.Valid([]byte(t)) {
		return nil, false
	}
	v, err := decodeJSON([]byte(t))
	if err != nil || measure(v).deep || !jsonType(v, want) {
		return nil, false
	}
	return v, true
}

// jsonType reports whether v is of the JSON Schema type t.
func jsonType(v any, t string) bool {
	switch v := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case json.Number:
		if t == "number" {
			return true
		}
		r, ok := numberRat(v)
		return t == "integer" && ok && r.IsInt()
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}
