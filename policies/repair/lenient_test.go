package repair

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLenientJSON(t *testing.T) {
	cases := []struct {
		in, out string
		fixes   []string
	}{
		{`{'a': 1, 'b': 'x'}`, `{"a": 1, "b": "x"}`, []string{fixNames[fixSingleQuotes]}},
		{`{'q': 'say "hi"', 'r': 'it\'s'}`, `{"q": "say \"hi\"", "r": "it's"}`, []string{fixNames[fixSingleQuotes]}},
		{`{"a": 1, "b": [1, 2,],}`, `{"a": 1, "b": [1, 2]}`, []string{fixNames[fixTrailingComma]}},
		{"{\"a\": 1 // the count\n}", "{\"a\": 1  \n}", []string{fixNames[fixComments]}},
		{`{/* c */ "a": /* d */ 2}`, `{  "a":   2}`, []string{fixNames[fixComments]}},
		{`{"a": 1, // trailing
}`, "{\"a\": 1  \n}", []string{fixNames[fixComments], fixNames[fixTrailingComma]}},
		{`{'ok': True, 'no': False, 'x': None, 'n': -1.5e+3}`, `{"ok": true, "no": false, "x": null, "n": -1.5e+3}`, []string{fixNames[fixPython], fixNames[fixSingleQuotes]}},
		{"{\"code\": \"line1\nline2\tx\"}", `{"code": "line1\nline2\tx"}`, []string{fixNames[fixControl]}},
		{`{"url": "http://x/y"}` + " // c", `{"url": "http://x/y"}` + "  ", []string{fixNames[fixComments]}},
		{`{"s": "True, None // not a comment"}, `, "", nil}, // comma after the last value
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			out, fixes, ok := lenientJSON(c.in)
			if c.out == "" {
				require.False(t, ok, out)
				return
			}
			require.True(t, ok)
			require.Equal(t, c.out, out)
			require.Equal(t, c.fixes, fixes)
		})
	}
}

// What is not certain is refused.
func TestLenientJSONRefuses(t *testing.T) {
	for _, in := range []string{
		`{"a": 1}`,            // already JSON: nothing to rewrite
		`{"a": 1`,             // cut off
		`{"a": "x`,            // cut off inside a string
		`{'a': 'x}`,           // cut off inside a single-quoted string
		`{a: 1}`,              // unquoted key
		`{"a": NaN}`,          // no JSON value
		`{"a": 1} {"b": 2}`,   // two values
		`[1 2]`,               // a missing comma
		`{"a": 1,,}`,          // two commas
		`{,}`,                 // a comma after no value
		`{'a': '\x41'}`,       // an escape JSON lacks
		`{"a": "\'"}`,         // \' in a double-quoted string
		`{"a": 1 /* open`,     // comment never closed
		`{"a": Truex}`,        // not a literal
		`{"a": 'b', "c": 1}}`, // a bracket too many
		`{"a": 1},`,           // a comma after the object
		`"{'a': 1}"`,          // a JSON string: RepairText's case, not this rule's
		strings.Repeat("[", 100) + "'x'" + strings.Repeat("]", 99),
	} {
		t.Run(in, func(t *testing.T) {
			out, _, ok := lenientJSON(in)
			require.False(t, ok, out)
		})
	}
}
