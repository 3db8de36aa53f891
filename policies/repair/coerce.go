package repair

import (
	"encoding/json"
	"fmt"
	"strings"
)

// coerceType converts v to the first type of want it converts to
// losslessly: "2" to 2, "yes" to true, 3 to "3", a single value to a
// one-item array and back, a JSON text in a string to what it encodes.
// A number that is not whole never becomes an integer: rounding is a
// judgement.
func coerceType(v any, want []string) (any, string, bool) {
	for _, w := range want {
		if out, why, ok := coerceTo(v, w); ok {
			return out, why, true
		}
	}
	return nil, "", false
}

func coerceTo(v any, want string) (any, string, bool) {
	switch v := v.(type) {
	case string:
		return fromString(v, want)
	case json.Number:
		switch want {
		case "string":
			return string(v), "a number where a string is wanted: its text", true
		case "array":
			return []any{v}, "a single value where an array is wanted: wrapped", true
		}
	case bool:
		switch want {
		case "string":
			return fmt.Sprint(v), "a boolean where a string is wanted: its text", true
		case "array":
			return []any{v}, "a single value where an array is wanted: wrapped", true
		}
	case map[string]any:
		if want == "array" {
			return []any{v}, "a single value where an array is wanted: wrapped", true
		}
	case []any:
		if len(v) == 1 && want != "array" {
			if jsonType(v[0], want) {
				return v[0], "a one-item array where a single " + want + " is wanted: unwrapped", true
			}
			if out, _, ok := coerceTo(v[0], want); ok {
				return out, "a one-item array where a single " + want + " is wanted: unwrapped and converted", true
			}
		}
	}
	return nil, "", false
}

func fromString(s, want string) (any, string, bool) {
	t := strings.TrimSpace(s)
	switch want {
	case "integer":
		if r, ok := parseNumber(t); ok && r.IsInt() {
			return ratNumber(r), "a number written as a string", true
		}
	case "number":
		if r, ok := parseNumber(t); ok {
			// Keep the text when JSON can hold it ("2868.70" stays so);
			// "+5", "007" and ".5" are rewritten.
			if json.Valid([]byte(t)) {
				return json.Number(t), "a number written as a string", true
			}
			return ratNumber(r), "a number written as a string", true
		}
	case "boolean":
		switch strings.ToLower(t) {
		case "true", "yes":
			return true, "a boolean written as a string", true
		case "false", "no":
			return false, "a boolean written as a string", true
		}
	case "array", "object":
		if strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
			if dec, ok := embeddedJSON(t, want); ok {
				return dec, "JSON written as a string: decoded", true
			}
			return nil, "", false
		}
		if want == "array" {
			return []any{s}, "a single value where an array is wanted: wrapped", true
		}
	}
	return nil, "", false
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
