package repair

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

func TestClamp(t *testing.T) {
	cases := []struct {
		name    string
		in      any
		b       bound
		integer bool
		out     json.Number
		ok      bool
	}{
		{"below minimum", json.Number("0"), bound{atLeast, rat("1")}, true, "1", true},
		{"above maximum", json.Number("12"), bound{atMost, rat("9")}, true, "9", true},
		{"negative", json.Number("-100"), bound{atLeast, rat("0")}, false, "0", true},
		{"decimal bound for a number", json.Number("0.1"), bound{atLeast, rat("0.25")}, false, "0.25", true},
		{"decimal minimum, integer: rounded up", json.Number("0"), bound{atLeast, rat("1.5")}, true, "2", true},
		{"decimal maximum, integer: rounded down", json.Number("10"), bound{atMost, rat("9.5")}, true, "9", true},
		{"negative decimal maximum, integer", json.Number("0"), bound{atMost, rat("-1.5")}, true, "-2", true},
		{"exclusive minimum, integer", json.Number("0"), bound{above, rat("0")}, true, "1", true},
		{"exclusive maximum, integer", json.Number("100"), bound{below, rat("100")}, true, "99", true},
		{"exclusive decimal minimum, integer", json.Number("1"), bound{above, rat("1.5")}, true, "2", true},
		{"exclusive bound on a number: no nearest value", json.Number("0"), bound{above, rat("0")}, false, "", false},
		{"already within", json.Number("5"), bound{atLeast, rat("1")}, true, "", false},
		{"not a number", "5", bound{atLeast, rat("10")}, true, "", false},
		{"exponent value", json.Number("1e3"), bound{atMost, rat("100")}, false, "100", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, why, ok := clamp(c.in, c.b, c.integer)
			require.Equal(t, c.ok, ok)
			require.Equal(t, c.out, out)
			if ok {
				require.NotEmpty(t, why)
			}
		})
	}
}

// Through Repair, the schema's type decides about rounding and
// exclusive bounds.
func TestRepairClampBySchema(t *testing.T) {
	s := schemaOf(t, `{"type": "object", "properties": {
		"temp": {"type": "number", "minimum": 0, "maximum": 100},
		"count": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
		"ratio": {"type": "number", "exclusiveMinimum": 0}}}`)
	r := Repair(s, obj(t, `{"temp": -100, "count": 10}`), Options{})
	require.True(t, r.Valid, r.Reason)
	require.Equal(t, json.Number("0"), r.Args["temp"])
	require.Equal(t, json.Number("9"), r.Args["count"])

	r = Repair(s, obj(t, `{"ratio": 0}`), Options{})
	require.False(t, r.Valid)
	require.Equal(t, "/ratio", r.Unrepaired[0].At)
}
