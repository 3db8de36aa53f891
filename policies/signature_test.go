package policies

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// Signatures are short hex strings, and the split between parts counts.
func TestSignature(t *testing.T) {
	hexRe := regexp.MustCompile(`^[0-9a-f]{16}$`)
	for _, parts := range [][]string{nil, {""}, {"a"}, {"node", "tool", "{}", "ok"}} {
		require.Regexp(t, hexRe, Signature(parts...))
	}
	require.Equal(t, Signature("a", "b"), Signature("a", "b"))
	require.NotEqual(t, Signature("ab", "c"), Signature("a", "bc"))
	require.NotEqual(t, Signature("a", ""), Signature("a"))
	require.NotEqual(t, Signature(), Signature(""))
}

// A call's signature ignores key order, space and volatile fields at any
// depth, and nothing else.
func TestCanonicalSignature(t *testing.T) {
	sig := func(args, outcome string, volatile []string) string {
		return CanonicalSignature("A", "search", []byte(args), outcome, volatile)
	}
	base := `{"from":"NYC","to":"LAX","pax":{"adults":2}}`
	same := []struct {
		name string
		args string
	}{
		{"key order and space", "{ \"pax\": {\"adults\": 2},\n \"to\": \"LAX\", \"from\": \"NYC\" }"},
		{"top-level volatile", `{"from":"NYC","to":"LAX","pax":{"adults":2},"timestamp":"2024-01-15T10:00:00Z","request_id":"r-1"}`},
		{"nested volatile", `{"from":"NYC","to":"LAX","pax":{"adults":2,"nonce":7}}`},
		{"volatile in an object inside an array", `{"from":"NYC","to":"LAX","pax":{"adults":2},"trace_id":{"a":[1]}}`},
	}
	for _, tc := range same {
		require.Equal(t, sig(base, "", DefaultVolatile), sig(tc.args, "", DefaultVolatile), tc.name)
	}
	require.Equal(t,
		sig(`[{"q":1,"requestId":"x"},{"q":2,"timestamp":1}]`, "", DefaultVolatile),
		sig(`[{"q":1},{"q":2}]`, "", DefaultVolatile), "volatile fields inside arrays")

	differ := []struct {
		name string
		a, b string
		vol  []string
	}{
		{"a value", base, `{"from":"NYC","to":"SFO","pax":{"adults":2}}`, DefaultVolatile},
		{"a nested value", base, `{"from":"NYC","to":"LAX","pax":{"adults":3}}`, DefaultVolatile},
		{"array order", `{"a":[1,2]}`, `{"a":[2,1]}`, DefaultVolatile},
		{"a volatile field when none is volatile", base, `{"from":"NYC","to":"LAX","pax":{"adults":2},"timestamp":1}`, nil},
		{"a field only named like a volatile one", `{"times":1}`, `{"times":2}`, DefaultVolatile},
		{"two different bad documents", `{"a":`, `{"b":`, DefaultVolatile},
		{"bad and good", `{"a":1} junk`, `{"a":1}`, DefaultVolatile},
	}
	for _, tc := range differ {
		require.NotEqual(t, sig(tc.a, "", tc.vol), sig(tc.b, "", tc.vol), tc.name)
	}

	require.NotEqual(t, sig(base, "", nil), sig(base, "transient", nil), "the outcome counts")
	require.NotEqual(t,
		CanonicalSignature("A", "search", []byte(base), "", nil),
		CanonicalSignature("B", "search", []byte(base), "", nil), "the node counts")
	require.NotEqual(t,
		CanonicalSignature("A", "search", []byte(base), "", nil),
		CanonicalSignature("A", "book", []byte(base), "", nil), "the tool counts")
	require.Equal(t, sig("", "", nil), sig("{}", "", nil), "blank arguments are the empty object")
	require.Equal(t, sig(" \n", "", DefaultVolatile), sig(`{"nonce":1}`, "", DefaultVolatile))
	require.Equal(t, sig(`{"n":1.50}`, "", DefaultVolatile), sig(`{"n":1.50,"timestamp":0}`, "", DefaultVolatile), "numbers keep their text")
}

// Nesting deeper than withoutKeys follows falls back to the raw text
// instead of recursing without bound.
func TestCanonicalSignatureDeepArguments(t *testing.T) {
	deep := make([]byte, 0, 2*(maxArgsDepth+10))
	for range maxArgsDepth + 5 {
		deep = append(deep, '[')
	}
	for range maxArgsDepth + 5 {
		deep = append(deep, ']')
	}
	require.NotPanics(t, func() { CanonicalSignature("A", "t", deep, "", DefaultVolatile) })
	require.Equal(t,
		CanonicalSignature("A", "t", deep, "", DefaultVolatile),
		Signature("A", "t", string(deep), ""))
}
