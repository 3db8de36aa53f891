package repair

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A value that is an allowed value with two or more letters put before or
// after it ("biweekly" and "weekly", "week" and "weekly") is another word,
// not a misspelling: the newest rules leave it to the model; the first
// rules matched it by edit distance, and recorded histories replay so.
func TestRepairEnumAffixIsAnotherWord(t *testing.T) {
	schema := schemaOf(t, `{"type": "object", "properties": {
		"recurrence": {"type": "string", "enum": ["none", "daily", "weekly", "monthly"]},
		"period": {"type": "string", "enum": ["week", "month"]},
		"class": {"type": "string", "enum": ["economy", "business", "first"]}}}`)
	cases := []struct {
		args, want string // want "" when it goes to the model
		first      string // what the first rules make of it; "" as want
	}{
		{`{"recurrence": "biweekly"}`, "", `{"recurrence":"weekly"}`},
		{`{"recurrence": "bi-weekly"}`, "", `{"recurrence":"weekly"}`},
		{`{"recurrence": "week"}`, "", `{"recurrence":"weekly"}`},
		{`{"recurrence": "dailies"}`, "", ""},
		{`{"period": "weekly"}`, "", ""},
		{`{"recurrence": "Weekly"}`, `{"recurrence":"weekly"}`, ""},
		{`{"recurrence": "wekly"}`, `{"recurrence":"weekly"}`, ""},
		{`{"recurrence": "weekyl"}`, `{"recurrence":"weekly"}`, ""},
		{`{"class": "bussines"}`, `{"class":"business"}`, ""},
		{`{"class": "bussiness"}`, `{"class":"business"}`, ""},
		{`{"class": "economy class"}`, `{"class":"economy"}`, ""},
	}
	for _, c := range cases {
		t.Run(c.args, func(t *testing.T) {
			for _, rules := range []RuleSet{RulesNewest, RulesFirst} {
				want := c.want
				if rules == RulesFirst && c.first != "" {
					want = c.first
				}
				r := Repair(schema, obj(t, c.args), Options{Rules: rules})
				if want == "" {
					require.False(t, r.Valid, "rules %d guessed: %s", rules, canon(t, r.Args))
					continue
				}
				require.True(t, r.Valid, "rules %d: %s", rules, r.Reason)
				require.Equal(t, want, canon(t, r.Args), "rules %d", rules)
			}
		})
	}
}

func TestAnotherWord(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"biweekly", "weekly", true},
		{"Bi-Weekly", "weekly", true},
		{"week", "weekly", true},
		{"weekly", "week", true},
		{"annually", "annual", true},
		{"semiannual", "annual", true},
		{"bweekly", "weekly", false}, // one letter: a typo
		{"weeklyy", "weekly", false},
		{"wekly", "weekly", false},
		{"bussines", "business", false},
		{"weekly", "weekly", false},
	} {
		require.Equal(t, c.want, anotherWord(c.a, c.b), "%s/%s", c.a, c.b)
	}
}
