package policies

import (
	"testing"

	"github.com/unstuck-dev/unstuck/config"
)

// Classify runs on every tool failure: a few rules, regexps cached.
func BenchmarkClassify(b *testing.B) {
	rules := []config.ErrorRule{
		{Status: 429, Class: "transient"},
		{Message: "(?i)invalid date", Class: "invalid_args"},
		{Status: 404, Message: "flight .* not found", Class: "invalid_args"},
	}
	msg := "tool search_flights: HTTP 404: flight UA123 not found on 2024-01-15"
	b.ReportAllocs()
	for b.Loop() {
		if Classify(404, msg, rules) != InvalidArgs {
			b.Fatal("wrong class")
		}
	}
}

// CanonicalJSON runs on every call of an idempotent tool.
func BenchmarkCanonicalJSON(b *testing.B) {
	doc := []byte(`{"to":"LAX","from":"NYC","date":"2024-01-15","passengers":{"adults":2,"children":1},
		"preferences":{"seat":"aisle","meal":"vegetarian","bags":[{"kg":23},{"kg":8}]},"price_max":450.00}`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CanonicalJSON(doc); err != nil {
			b.Fatal(err)
		}
	}
}
