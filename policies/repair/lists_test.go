package repair

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// listSchema has arrays of plain strings, of enum values and of integers.
const listSchema = `{"type": "object", "properties": {
	"attendees": {"type": "array", "items": {"type": "string"}},
	"categories": {"type": "array", "items": {"type": "string", "enum": ["electronics", "books", "home"]}},
	"ids": {"type": "array", "items": {"type": "integer"}}},
	"additionalProperties": false}`

// The known wrong repair (issue 14): a string holding several
// comma-separated values for an array reached the tool as a one-item
// array with the whole string inside. It must be split, or go to the
// model, never wrapped whole.
func TestRepairListInAStringIsSplitNotWrapped(t *testing.T) {
	schema := schemaOf(t, listSchema)
	r := Repair(schema, obj(t, `{"attendees": "ana@example.com, bo@example.com"}`), Options{})
	require.True(t, r.Valid, r.Reason)
	require.Equal(t, `{"attendees":["ana@example.com","bo@example.com"]}`, canon(t, r.Args))
}

// splitText splits on the separator the text uses, or refuses.
func TestSplitText(t *testing.T) {
	cases := []struct {
		in   string
		want []string // nil: refused
		sep  string
	}{
		{"a, b, c", []string{"a", "b", "c"}, "commas"},
		{"a,b", []string{"a", "b"}, "commas"},
		{"a, b,", []string{"a", "b"}, "commas"},
		{"a; b, c", []string{"a", "b, c"}, "semicolons"},
		{"Smith, J; Doe, A", []string{"Smith, J", "Doe, A"}, "semicolons"},
		{`"Smith, J", "Doe, A"`, []string{"Smith, J", "Doe, A"}, "commas"},
		{"a\nb, c\r\n\n c ", []string{"a", "b, c", "c"}, "newlines"},
		{"- milk\n- eggs", []string{"milk", "eggs"}, "newlines"},
		{"• milk\n• eggs", []string{"milk", "eggs"}, "newlines"},
		{"- milk\neggs", []string{"- milk", "eggs"}, "newlines"},
		{"a", []string{"a"}, "commas"},
		{"a,,b", nil, ""},
		{", a", nil, ""},
		{"red, green and blue", nil, ""},
		{"red, green, and blue", nil, ""},
		{"tea, or coffee", nil, ""},
		{`5" screen, 7" screen`, nil, ""},
		{"a\xff, b", nil, ""},
		{strings.Repeat("a,", maxListItems+1), nil, ""},
		{strings.Repeat("a", maxListText+1) + ",b", nil, ""},
		{" \n\n ", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.in[:min(len(c.in), 40)], func(t *testing.T) {
			items, sep, ok := splitText(c.in)
			require.Equal(t, c.want != nil, ok)
			require.Equal(t, c.want, items)
			require.Equal(t, c.sep, sep)
		})
	}
}

// Commas between numbers split only when none could be a thousands
// separator or a decimal comma.
func TestNumbersSplitCertain(t *testing.T) {
	for in, want := range map[string]bool{
		"1, 2, 3": true, "1,2,3": true, "10,20,30": true, "1, 250": true, "1, 2,": true,
		"1,250": false, "2,5": false, "1,250,000": false, "1,5, 2,5": false, "1,250, 3": false,
	} {
		require.Equal(t, want, numbersSplitCertain(in, "commas"), in)
	}
	require.True(t, numbersSplitCertain("1,5; 2,5", "semicolons"))
}

// Through Repair: a list is split when its items then fit the item
// schema (after certain repairs), wrapped when it holds no separator,
// and otherwise left to the model: never wrapped whole.
func TestRepairListsFromText(t *testing.T) {
	const schema = `{"type": "object", "properties": {
		"attendees": {"type": "array", "items": {"type": "string"}},
		"categories": {"type": "array", "items": {"type": "string", "enum": ["electronics", "books", "home", "home, garden"]}},
		"ids": {"type": "array", "items": {"type": "integer"}},
		"prices": {"type": "array", "items": {"type": "number"}},
		"flags": {"type": "array", "items": {"type": "boolean"}},
		"codes": {"type": "array", "items": {"type": "string", "pattern": "^[A-Z]{3}$"}, "maxItems": 2},
		"people": {"type": "array", "items": {"type": "object"}}},
		"additionalProperties": false}`
	cases := []struct {
		name, args, want string // want "" when it goes to the model
		strategies       []string
	}{
		{"commas", `{"attendees": "ana@example.com, bo@example.com"}`, `{"attendees":["ana@example.com","bo@example.com"]}`, []string{StrategySplitList}},
		{"one value is wrapped", `{"attendees": "ana@example.com"}`, `{"attendees":["ana@example.com"]}`, []string{StrategyCoerceType}},
		{"lines", `{"attendees": "- ana\n- bo"}`, `{"attendees":["ana","bo"]}`, []string{StrategySplitList}},
		{"enum items corrected after", `{"categories": "Books; HOME"}`, `{"categories":["books","home"]}`, []string{StrategySplitList, StrategyCorrectEnum, StrategyCorrectEnum}},
		{"integers", `{"ids": "1, 2, 3"}`, `{"ids":[1,2,3]}`, []string{StrategySplitList, StrategyCoerceType, StrategyCoerceType, StrategyCoerceType}},
		{"prices in dollars", `{"prices": "$5, $7.50"}`, `{"prices":[5,7.5]}`, []string{StrategySplitList, StrategyReadNumber, StrategyReadNumber}},
		{"booleans", `{"flags": "yes, off"}`, `{"flags":[true,false]}`, []string{StrategySplitList, StrategyCoerceType, StrategyCoerceType}},
		{"codes", `{"codes": "LHR,CDG"}`, `{"codes":["LHR","CDG"]}`, []string{StrategySplitList}},
		{"an integer that may be grouped", `{"ids": "1,250"}`, "", nil},
		{"a decimal comma", `{"prices": "2,5"}`, "", nil},
		{"an item that does not fit", `{"ids": "1, two"}`, "", nil},
		{"a pattern an item breaks", `{"codes": "LHR, Paris"}`, "", nil},
		{"more items than allowed", `{"codes": "LHR, CDG, JFK"}`, "", nil},
		{"objects from text", `{"people": "ana, bo"}`, "", nil},
		{"the whole text is also an item", `{"categories": "home, garden"}`, "", nil},
		{"joined by a word", `{"attendees": "ana, bo and cy"}`, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Repair(schemaOf(t, schema), obj(t, c.args), Options{})
			if c.want == "" {
				require.False(t, r.Valid, "guessed: %s", canon(t, r.Args))
				require.Empty(t, r.Repairs, "a repair that is not certain was made")
				return
			}
			require.True(t, r.Valid, r.Reason)
			require.Equal(t, c.want, canon(t, r.Args))
			require.Equal(t, c.strategies, strategies(r))
		})
	}
}

// The first rule set wrapped a string for an array whole: recorded
// histories replay with it.
func TestListsFirstRules(t *testing.T) {
	r := Repair(schemaOf(t, listSchema), obj(t, `{"attendees": "ana, bo", "ids": "7"}`), Options{Rules: RulesFirst})
	require.True(t, r.Valid, r.Reason)
	require.Equal(t, `{"attendees":["ana, bo"],"ids":[7]}`, canon(t, r.Args))
}
