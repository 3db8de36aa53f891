package repair

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTrim(t *testing.T) {
	cases := []struct {
		name     string
		in       any
		max, min int
		out      string
		ok       bool
	}{
		{"cut", "abcdef", 3, 0, "abc", true},
		{"surrounding space first", "  abc  ", 3, 0, "abc", true},
		{"space left by the cut", "Hello world", 6, 0, "Hello", true},
		{"space kept for minLength", "Hello world", 6, 6, "Hello ", true},
		{"code points, not bytes", "héllo wörld", 5, 0, "héllo", true},
		{"emoji", "👍👍👍", 2, 0, "👍👍", true},
		{"fits already", "abc", 3, 0, "", false},
		{"not a string", 12345, 3, 0, "", false},
		{"zero length", "abc", 0, 0, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, ok := trim(c.in, c.max, c.min)
			require.Equal(t, c.ok, ok)
			require.Equal(t, c.out, out)
		})
	}
}

func TestRepairTrim(t *testing.T) {
	s := schemaOf(t, `{"type": "object", "properties": {"title": {"type": "string", "maxLength": 10}}}`)
	r := Repair(s, obj(t, `{"title": "Quarterly planning meeting"}`), Options{})
	require.True(t, r.Valid, r.Reason)
	require.Equal(t, "Quarterly", r.Args["title"])
	require.Equal(t, []string{StrategyTrim}, strategies(r))
}
