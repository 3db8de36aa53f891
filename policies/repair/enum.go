package repair

import (
	"encoding/json"
	"fmt"
	"strings"
)

// correctEnum maps a value that is not allowed to the allowed value it
// means: "Business" or "business class" to "business", "premium economy"
// to "premium_economy", "ecnomy" to "economy", "2" to 2 when the enum
// holds numbers, 3 to "3" when it holds strings. It refuses when several
// allowed values fit equally well.
func correctEnum(v any, allowed []any) (any, string, bool) {
	var strs []string
	var strIdx []int
	for i, a := range allowed {
		if s, ok := a.(string); ok {
			strs = append(strs, s)
			strIdx = append(strIdx, i)
		}
	}
	switch v := v.(type) {
	case string:
		if out, ok := sameScalar(strings.TrimSpace(v), allowed); ok {
			return out, "a " + jsonTypeName(out) + " written as a string", true
		}
		i, how, ok := bestMatch(v, strs, true)
		if !ok || strs[i] == v {
			return nil, "", false
		}
		return allowed[strIdx[i]], fmt.Sprintf("%q %s", strs[i], how), true
	case json.Number, bool:
		text := fmt.Sprint(v)
		for i, s := range strs {
			if s == text {
				return allowed[strIdx[i]], "the allowed string with the same text", true
			}
		}
	}
	return nil, "", false
}

// sameScalar is the allowed number or boolean that text writes, if any.
func sameScalar(text string, allowed []any) (any, bool) {
	r, isNum := parseNumber(text)
	for _, a := range allowed {
		switch a := a.(type) {
		case json.Number:
			if ar, ok := numberRat(a); ok && isNum && ar.Cmp(r) == 0 {
				return a, true
			}
		case bool:
			if strings.EqualFold(text, fmt.Sprint(a)) {
				return a, true
			}
		}
	}
	return nil, false
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "value"
}
