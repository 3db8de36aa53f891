package policies

import (
	"encoding/json"
	"testing"

	"github.com/unstuck-dev/unstuck/config"
)

// CanonicalJSON never panics; for valid JSON it succeeds, answers valid
// JSON and is idempotent.
func FuzzCanonicalJSON(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `null`, `{"b":1,"a":[1,2,{"d":null,"c":true}]}`, ` {"n": 1.50e+3 } `,
		`"\u003c\u0026\u003e"`, `{"a":1,"a":2}`, `-0`, `{"\ud800":"x"}`, "\"\xff\"", `{`, `1 2`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		once, err := CanonicalJSON(doc)
		if !json.Valid(doc) {
			return // an error or not, it must only not panic
		}
		if err != nil {
			t.Fatalf("valid JSON %q refused: %v", doc, err)
		}
		if !json.Valid(once) {
			t.Fatalf("canonical form %q of %q is not JSON", once, doc)
		}
		twice, err := CanonicalJSON(once)
		if err != nil {
			t.Fatalf("canonical form %q refused: %v", once, err)
		}
		if string(once) != string(twice) {
			t.Fatalf("not idempotent: %q -> %q -> %q", doc, once, twice)
		}
	})
}

// Patterns a rule may carry; drawn by index rather than fuzzed, as every
// distinct pattern stays in the compiled-regexp cache for the process.
var fuzzPatterns = []string{"", "(?i)invalid date", "^$", ".*", "rate", "(", `\d{3}`, "[a-z]+ not found"}

var fuzzClasses = []Class{Transient, InvalidArgs, Persistent, Fatal}

// Classify never panics and always answers one of the four classes, for
// any status and message, given rules of valid classes.
func FuzzClassify(f *testing.F) {
	f.Add(0, "", 0, uint8(0), uint8(0), uint8(0))
	f.Add(429, "rate limited", 429, uint8(4), uint8(3), uint8(2))
	f.Add(500, "Invalid Date", 0, uint8(1), uint8(1), uint8(1))
	f.Add(-1, "(", 404, uint8(5), uint8(2), uint8(9))
	f.Add(1<<30, "\xff\xfe", -7, uint8(6), uint8(0), uint8(3))
	f.Fuzz(func(t *testing.T, status int, message string, ruleStatus int, pattern, class, n uint8) {
		rules := make([]config.ErrorRule, int(n%4))
		for i := range rules {
			rules[i] = config.ErrorRule{
				Status:  []int{0, ruleStatus, status}[(i+int(n))%3],
				Message: fuzzPatterns[(int(pattern)+i)%len(fuzzPatterns)],
				Class:   string(fuzzClasses[(int(class)+i)%len(fuzzClasses)]),
			}
		}
		got := Classify(status, message, rules)
		switch got {
		case Transient, InvalidArgs, Persistent, Fatal:
		default:
			t.Fatalf("Classify(%d, %q, %+v) = %q, not a class", status, message, rules, got)
		}
		if def := ClassifyStatus(status); len(rules) == 0 && got != def {
			t.Fatalf("no rules: Classify(%d) = %q, ClassifyStatus = %q", status, got, def)
		}
	})
}
