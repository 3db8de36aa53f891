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
// allowed values fit equally well and, under the newest rules, when the
// one within a small edit distance is the value with an affix added or
// taken off (anotherWord).
func correctEnum(v any, allowed []any, rules RuleSet) (any, string, bool) {
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
		if !ok || strs[i] == v || (how == byDistance && rules != RulesFirst && anotherWord(v, strs[i])) {
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

// anotherWord reports two names one of which is the other with two or
// more letters before or after it (squashed): "biweekly" and "weekly",
// "week" and "weekly", "annually" and "annual". The edit distance calls
// them near, but a prefix or suffix makes another word, often of another
// meaning (every two weeks is not weekly), not a misspelling; a typo
// drops, adds or swaps a letter inside. The first rules did not ask
// (RulesFirst): "biweekly" became "weekly".
func anotherWord(a, b string) bool {
	a, b = squash(a), squash(b)
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(b)-len(a) >= 2 && (strings.HasPrefix(b, a) || strings.HasSuffix(b, a))
}
