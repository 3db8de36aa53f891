package repair

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCorrectEnum(t *testing.T) {
	classes := []any{"economy", "premium_economy", "business", "first"}
	cases := []struct {
		name    string
		in      any
		allowed []any
		out     any
		ok      bool
	}{
		{"case", "Business", classes, "business", true},
		{"shouting", "FIRST", classes, "first", true},
		{"spacing", "  economy ", classes, "economy", true},
		{"space for underscore", "premium economy", classes, "premium_economy", true},
		{"hyphen", "Premium-Economy", classes, "premium_economy", true},
		{"camel case", "premiumEconomy", classes, "premium_economy", true},
		{"run together", "premiumeconomy", classes, "premium_economy", true},
		{"unit word: class", "business class", classes, "business", true},
		{"unit word: seat", "economy seat", classes, "economy", true},
		{"unit word on a two-word value", "Premium Economy Class", classes, "premium_economy", true},
		{"unit word that ends an allowed value", "living room room", []any{"living_room", "bedroom"}, "living_room", true},
		{"allowed value with its unit word", "guest", []any{"living_room", "guest_room"}, "guest_room", true},
		{"one typo", "ecnomy", classes, "economy", true},
		{"swapped letters", "frist", classes, "first", true},
		{"two typos", "bussines", classes, "business", true},
		{"too far", "coach", classes, nil, false},
		{"a non-unit trailing word", "business traveller", classes, nil, false},
		{"ambiguous by distance", "cat", []any{"bat", "hat"}, nil, false},
		{"ambiguous by folding", "A B", []any{"a-b", "a_b"}, nil, false},
		{"short codes are not fuzzed", "UX", []any{"UA", "DL"}, nil, false},
		{"number written as string", "2", []any{json.Number("1"), json.Number("2")}, json.Number("2"), true},
		{"number as the string of a string enum", json.Number("3"), []any{"3", "4"}, "3", true},
		{"boolean written as string", "True", []any{true, false}, true, true},
		{"unit words alone are kept", "class", []any{"first", "business"}, nil, false},
		{"const", "V1", []any{"v1"}, "v1", true},
		{"nothing to match", "x", []any{}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, why, ok := correctEnum(c.in, c.allowed, RulesNewest)
			require.Equal(t, c.ok, ok, "got %v", out)
			require.Equal(t, c.out, out)
			if ok {
				require.NotEmpty(t, why)
			}
		})
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"Premium-Economy":  "premium_economy",
		"premium economy":  "premium_economy",
		"premiumEconomy":   "premium_economy",
		"  --a__b--  ":     "a_b",
		"HTTPServer":       "httpserver",
		"Business Class.":  "business_class",
		"café au lait":     "café_au_lait",
		"":                 "",
		"_":                "",
		"premium_economy2": "premium_economy2",
	} {
		require.Equal(t, want, fold(in), in)
	}
}

func TestOSA(t *testing.T) {
	cases := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"economy", "economy", 2, 0},
		{"ecnomy", "economy", 2, 1},
		{"frist", "first", 2, 1},
		{"bussines", "business", 2, 2},
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 2, 3},
		{"abc", "abcdefgh", 2, 3},
		{"", "ab", 2, 2},
		{"ca", "abc", 3, 3},
	}
	for _, c := range cases {
		require.Equal(t, c.want, osa([]rune(c.a), []rune(c.b), c.limit), "%s/%s", c.a, c.b)
	}
}
