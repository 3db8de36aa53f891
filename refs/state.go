package refs

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// State is the run's State: what calls wrote through _outputPath and what
// references read. It is a map of decoded JSON whose numbers are Exact, and
// it decodes itself that way, so a run carried across continue-as-new (or
// read back from anywhere else) keeps every number it held. Lookup and
// Resolve accept it as a state root like a plain map.
type State map[string]any

// UnmarshalJSON decodes State with its numbers exact (see Exact). null
// leaves a nil State, as it did for a plain map.
func (s *State) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return err
	}
	if m != nil {
		Exact(m)
	}
	*s = m
	return nil
}

// Exact rewrites the json.Number values of decoded JSON (a map or slice is
// rewritten in place and returned) so that each number keeps its exact
// value and still compares as a number where it can:
//
//   - an integer in int64 range is an int64 (9007199254740993 stays so);
//   - a number whose shortest float64 form is the same decimal value is a
//     float64 (0.1, 2.5, 1e21; re-encoded it reads as the same value);
//   - anything else stays a json.Number with its text: integers beyond
//     int64 (123456789012345678901234567890) and decimals with more digits
//     than a float64 holds (0.1000000000000000055511151231257827).
//
// An edge condition (expr) sees a json.Number as a named string, not a
// number: compare it as text, string(state.id) == "123456789012345678901234567890";
// state.id > 5 is a condition error and state.id == 5 is false. Values of
// other types are answered unchanged.
func Exact(v any) any {
	switch x := v.(type) {
	case json.Number:
		return exactNumber(x)
	case map[string]any:
		for k, e := range x { //workflowcheck:ignore each entry is rewritten in place: order does not matter
			x[k] = Exact(e)
		}
		return x
	case State:
		Exact(map[string]any(x))
		return x
	case []any:
		for i, e := range x {
			x[i] = Exact(e)
		}
		return x
	default:
		return v
	}
}

func exactNumber(n json.Number) any {
	s := string(n)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i
	}
	f, err := strconv.ParseFloat(s, 64)
	if err == nil && sameDecimal(strconv.FormatFloat(f, 'g', -1, 64), s) {
		return f
	}
	return n
}

// sameDecimal reports whether two decimal number texts (JSON numbers, or
// strconv's 'g' format) have the same value: "1e+21" and
// "1000000000000000000000", "2.50" and "2.5". Zeros are equal whatever
// their sign. Text that is not a decimal number is equal to nothing.
func sameDecimal(a, b string) bool {
	an, ad, ae, ok1 := decimalParts(a)
	bn, bd, be, ok2 := decimalParts(b)
	if !ok1 || !ok2 {
		return false
	}
	if ad == "" || bd == "" {
		return ad == bd
	}
	return an == bn && ad == bd && ae == be
}

// decimalParts reads a decimal number as its sign, its significant digits
// (no leading or trailing zeros, "" for zero) and the exponent of their
// last digit: "-12.50e3" is (true, "125", 2).
func decimalParts(s string) (neg bool, digits string, exp int64, ok bool) {
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	} else if strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		e, err := strconv.ParseInt(expText, 10, 64)
		// Past a billion the exponent is no float64 and no plausible JSON.
		if err != nil || e > 1e9 || e < -1e9 {
			return false, "", 0, false
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" && frac == "" {
		return false, "", 0, false
	}
	for _, part := range []string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return false, "", 0, false
			}
		}
	}
	all := strings.TrimLeft(intPart+frac, "0")
	exp -= int64(len(frac))
	trimmed := strings.TrimRight(all, "0")
	exp += int64(len(all) - len(trimmed))
	return neg, trimmed, exp, true
}
