package repair

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Booleans from words and digits, in any case; nothing else.
func TestBooleans(t *testing.T) {
	cases := []struct {
		in   any
		want any // nil: refused
	}{
		{"yes", true}, {"YES", true}, {" Yes ", true}, {"no", false}, {"No", false},
		{"on", true}, {"ON", true}, {"off", false}, {"Off", false},
		{"true", true}, {"TRUE", true}, {"False", false},
		{"1", true}, {"0", false}, {" 1 ", true},
		{json.Number("1"), true}, {json.Number("0"), false}, {json.Number("1.0"), true},
		{"maybe", nil}, {"y", nil}, {"2", nil}, {"-1", nil}, {"01", nil}, {"", nil}, {"\xff", nil},
		{json.Number("2"), nil}, {json.Number("-1"), nil}, {json.Number("0.5"), nil},
		{json.Number("1e400"), nil}, {json.Number("100000000000000000000000000000001"), nil},
	}
	for _, c := range cases {
		t.Run(canon(t, c.in), func(t *testing.T) {
			out, why, ok := coerceType(c.in, []string{"boolean"})
			require.Equal(t, c.want != nil, ok)
			require.Equal(t, c.want, out)
			if ok {
				require.NotEmpty(t, why)
			}
		})
	}
}

// The first rule set read only true/false/yes/no strings, as recorded
// histories were repaired with.
func TestBooleansFirstRules(t *testing.T) {
	first := coercion{rules: RulesFirst}
	for in, want := range map[string]bool{"yes": true, "FALSE": false} {
		out, ok := first.convert(in, []string{"boolean"})
		require.True(t, ok)
		require.Equal(t, want, out.value)
	}
	for _, in := range []any{"on", "off", "1", "0", json.Number("1")} {
		_, ok := first.convert(in, []string{"boolean"})
		require.False(t, ok, "%v", in)
	}
}
