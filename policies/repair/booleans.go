package repair

import (
	"encoding/json"
	"strings"
)

// Booleans written as words or digits (strategy coerce_type). The rule
// is certain for exactly these, trimmed, in any case: true/false,
// yes/no, on/off, 1/0, and the numbers 0 and 1. Anything else ("maybe",
// "2", "y") goes to the model.

// boolWord reads a boolean from text. first is the first rule set, which
// read only true/false and yes/no.
func boolWord(s string, first bool) (bool, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "true", "yes":
		return true, true
	case "false", "no":
		return false, true
	}
	if first {
		return false, false
	}
	switch t {
	case "on", "1":
		return true, true
	case "off", "0":
		return false, true
	}
	return false, false
}

// boolNumber reads a boolean from the number 0 or 1.
func boolNumber(n json.Number) (bool, bool) {
	r, ok := numberRat(n)
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return false, false
	}
	switch r.Num().Int64() {
	case 0:
		return false, true
	case 1:
		return true, true
	}
	return false, false
}
