package repair

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Text given for an array of free-text items (strings the schema does not
// list or pattern) says where its items end only by a separator no item
// holds: a comma or a semicolon inside one free-text item ("Met at the
// expo, wants a demo"), inside one argument ("--format=%(name)s,%(levelname)s")
// or a space between shell words ("-v -x tests/unit") is not certain, and
// goes to the model. Items the schema checks (enum, pattern, format) and
// one-word items still split; lines still split.
func TestRepairFreeTextLists(t *testing.T) {
	const schema = `{"type": "object", "properties": {
		"notes": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 500}},
		"args": {"type": "array", "items": {"type": "string"}},
		"any": {"type": "array"},
		"cities": {"type": "array", "items": {"type": "string", "enum": ["New York", "Paris"]}},
		"emails": {"type": "array", "items": {"type": "string", "format": "email"}},
		"ids": {"type": "array", "items": {"type": "integer"}}},
		"additionalProperties": false}`
	cases := []struct {
		name, args, want string // want "" when it goes to the model
		strategies       []string
	}{
		{"one-word items split on commas", `{"notes": "kitchen, steel, gift"}`, `{"notes":["kitchen","steel","gift"]}`, []string{StrategySplitList}},
		{"one-word items split on bare commas", `{"notes": "kitchen,steel"}`, `{"notes":["kitchen","steel"]}`, []string{StrategySplitList}},
		{"one-word items split on semicolons", `{"notes": "kitchen; steel"}`, `{"notes":["kitchen","steel"]}`, []string{StrategySplitList}},
		{"addresses and names are one word", `{"args": "ana@example.com, o'brien, v1.2_rc-3"}`, `{"args":["ana@example.com","o'brien","v1.2_rc-3"]}`, []string{StrategySplitList}},
		{"free text split on lines", `{"notes": "Sent pricing\nFollow up in April"}`, `{"notes":["Sent pricing","Follow up in April"]}`, []string{StrategySplitList}},
		{"a comma inside one note", `{"notes": "Met at the expo, wants a demo"}`, "", nil},
		{"a comma inside one agenda item", `{"notes": "Review Q1 numbers, then plan Q2"}`, "", nil},
		{"a semicolon inside one note", `{"notes": "Met at the expo; wants a demo"}`, "", nil},
		{"commas inside one argument", `{"args": "--format=%(name)s,%(levelname)s"}`, "", nil},
		{"commas inside one option", `{"args": "-Wl,-rpath,/opt/lib"}`, "", nil},
		{"commas inside one key=value", `{"args": "k=a,b"}`, "", nil},
		{"free text for items of any schema", `{"any": "Met at the expo, wants a demo"}`, "", nil},
		{"checked items with words split", `{"cities": "New York, Paris"}`, `{"cities":["New York","Paris"]}`, []string{StrategySplitList}},
		{"checked items split", `{"emails": "ana@example.com,bo@example.com"}`, `{"emails":["ana@example.com","bo@example.com"]}`, []string{StrategySplitList}},
		{"one word is wrapped", `{"args": "-x"}`, `{"args":["-x"]}`, []string{StrategyCoerceType}},
		{"shell words are not wrapped whole", `{"args": "-v -x tests/unit"}`, "", nil},
		{"words for free-text items are not wrapped", `{"notes": "New York"}`, "", nil},
		{"words for a checked item are wrapped", `{"cities": "New York"}`, `{"cities":["New York"]}`, []string{StrategyCoerceType}},
		{"words a checked item refuses", `{"emails": "ana@example.com bo@example.com"}`, "", nil},
		{"numbers with a space between", `{"ids": "1 250"}`, "", nil},
		{"a grouped number for free-text items", `{"notes": "1,250"}`, "", nil},
		{"numbers for free-text items", `{"notes": "1, 250"}`, `{"notes":["1","250"]}`, []string{StrategySplitList}},
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

// The first rule set wrapped any text for an array whole; recorded
// histories replay with it.
func TestFreeTextListsFirstRules(t *testing.T) {
	schema := schemaOf(t, `{"type": "object", "properties": {"args": {"type": "array", "items": {"type": "string"}}}}`)
	for _, in := range []string{"-v -x tests/unit", "--format=%(name)s,%(levelname)s", "Met at the expo, wants a demo"} {
		r := Repair(schema, map[string]any{"args": in}, Options{Rules: RulesFirst})
		require.True(t, r.Valid, r.Reason)
		require.Equal(t, []any{in}, r.Args["args"], in)
	}
}

func TestPlainWord(t *testing.T) {
	for in, want := range map[string]bool{
		"kitchen": true, "ana@example.com": true, "o'brien": true, "v1.2_rc-3": true, "tests/unit": true,
		"c++": true, "café": true, "42": true, "naïve": true,
		"": false, "-x": false, "--format=%(name)s": false, "%(levelname)s": false, "k=a": false,
		"a:b": false, "a b": false, `"a"`: false, "$5": false, "/opt": false, ".env": false, "a|b": false,
	} {
		require.Equal(t, want, plainWord(in), in)
	}
}
