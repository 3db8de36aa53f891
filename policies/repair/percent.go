package repair

import (
	"math/big"
	"strings"
)

// percentScale says how the schema at a location takes a percentage
// written as "15%", which is certain only when the schema says it:
//
//   - as a fraction (15% is 0.15) when its maximum or exclusiveMaximum is
//     at most 1: 15 would not be allowed, so 0.15 is the one reading;
//   - as a number of percent (15% is 15) when its description or title
//     says percent ("percent", "percentage", "%") and its maximum does
//     not say fraction.
//
// Otherwise ("discount": {"type": "number"}) both readings are allowed
// and the value goes to the model.
func percentScale(ns nodes) (divide bool, why string, ok bool) {
	for _, key := range []string{"maximum", "exclusiveMaximum"} {
		if v, found := ns.first(key); found {
			if r, isNum := numberValue(v); isNum && r.Cmp(big.NewRat(1, 1)) <= 0 {
				return true, "the percentage read as a fraction (the schema's " + key + " is at most 1)", true
			}
		}
	}
	for _, key := range []string{"description", "title"} {
		if v, found := ns.first(key); found {
			if s, isStr := v.(string); isStr && saysPercent(s) {
				return false, "the percentage read as a number of percent (the schema's " + key + " says percent)", true
			}
		}
	}
	return false, "", false
}

// saysPercent reports text that says its number is a percentage.
func saysPercent(s string) bool {
	if len(s) > maxMessageLen {
		s = s[:maxMessageLen]
	}
	l := strings.ToLower(s)
	return strings.Contains(l, "percent") || strings.Contains(l, "%")
}
