package repair

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseRejection(t *testing.T) {
	cases := []struct {
		msg  string
		want []Hint
	}{
		// the seed's patterns
		{"Invalid date format for 'departure_date'", []Hint{{Field: "departure_date", Kind: HintDate}}},
		{`400 Bad Request: invalid date format for "departure_date"`, []Hint{{Field: "departure_date", Kind: HintDate}}},
		{"INVALID DATE FORMAT FOR departure_date", []Hint{{Field: "departure_date", Kind: HintDate}}},
		{"Parameter 'departure_date' has invalid date format. Expected YYYY-MM-DD.", []Hint{{Field: "departure_date", Kind: HintDate}}},
		{"Missing required parameter 'passengers'", []Hint{{Field: "passengers", Kind: HintMissing}}},
		{"Missing required parameter: passengers", []Hint{{Field: "passengers", Kind: HintMissing}}},
		{"missing field `passengers`", []Hint{{Field: "passengers", Kind: HintMissing}}},
		{"'passengers' is required", []Hint{{Field: "passengers", Kind: HintMissing}}},
		{"Value for 'passengers' must be >= 1", []Hint{{Field: "passengers", Kind: HintMin, Bound: "1"}}},
		{"Parameter 'temp' must be <= 100.", []Hint{{Field: "temp", Kind: HintMax, Bound: "100"}}},
		{"value for \"count\" must be > 0", []Hint{{Field: "count", Kind: HintMin, Bound: "0", Exclusive: true}}},
		{"count must be < 10", []Hint{{Field: "count", Kind: HintMax, Bound: "10", Exclusive: true}}},
		{"'passengers' must be at least 1", []Hint{{Field: "passengers", Kind: HintMin, Bound: "1"}}},
		{"'passengers' must not exceed 9", []Hint{{Field: "passengers", Kind: HintMax, Bound: "9"}}},
		{"'temp' must be greater than or equal to -40.5", []Hint{{Field: "temp", Kind: HintMin, Bound: "-40.5"}}},
		{"'amount' must be positive", []Hint{{Field: "amount", Kind: HintMin, Bound: "0", Exclusive: true}}},
		{"'count' must be a non-negative integer", []Hint{{Field: "count", Kind: HintMin, Bound: "0"}}},
		{"'n' must be >= 1e99999", nil},
		{"'temp' must be between 0 and 100", []Hint{{Field: "temp", Kind: HintMin, Bound: "0"}, {Field: "temp", Kind: HintMax, Bound: "100"}}},
		{"Value for 'class' must be one of [economy, business, first]",
			[]Hint{{Field: "class", Kind: HintEnum, Values: []string{"economy", "business", "first"}}}},
		{`'class' must be one of ['economy', 'business']`, []Hint{{Field: "class", Kind: HintEnum, Values: []string{"economy", "business"}}}},
		{`class must be one of: economy, business or first.`, []Hint{{Field: "class", Kind: HintEnum, Values: []string{"economy", "business", "first"}}}},
		{"must be one of (red|green)", []Hint{{Kind: HintEnum, Values: []string{"red", "green"}}}},
		{"Invalid value for 'class'. Allowed values: economy, business",
			[]Hint{{Field: "class", Kind: HintEnum, Values: []string{"economy", "business"}}}},
		{"Parameter 'passengers' has invalid type", []Hint{{Field: "passengers", Kind: HintType}}},
		{"invalid type for field passengers", []Hint{{Field: "passengers", Kind: HintType}}},
		{"expected integer for 'passengers'", []Hint{{Field: "passengers", Kind: HintType, Values: []string{"integer"}}}},
		{"Parameter 'passengers' must be an integer.", []Hint{{Field: "passengers", Kind: HintType, Values: []string{"integer"}}}},
		{"passengers: expected int, got str", []Hint{{Field: "passengers", Kind: HintType, Values: []string{"integer"}}}},
		{"Parameter 'phone' does not match pattern: ^\\+1 \\(\\d{3}\\) \\d{3}-\\d{4}$",
			[]Hint{{Field: "phone", Kind: HintPattern, Values: []string{`^\+1 \(\d{3}\) \d{3}-\d{4}$`}}}},
		{"'code' doesn't match the pattern '^[A-Z]{3}$'.", []Hint{{Field: "code", Kind: HintPattern, Values: []string{"^[A-Z]{3}$"}}}},
		// several at once, in message order, each once
		{"Invalid date format for 'departure_date'; missing required parameter 'passengers'; value for 'class' must be one of [economy, business]",
			[]Hint{{Field: "departure_date", Kind: HintDate}, {Field: "passengers", Kind: HintMissing},
				{Field: "class", Kind: HintEnum, Values: []string{"economy", "business"}}}},
		{"Missing required parameter 'a'. Missing required parameter 'a'.", []Hint{{Field: "a", Kind: HintMissing}}},
		// nothing to read
		{"", nil},
		{"Internal Server Error", nil},
		{"Unauthorized: Invalid API Key", nil},
		{"Flight for given route not found", nil},
		{"the value must be >= 1", []Hint{{Kind: HintMin, Bound: "1"}}},
	}
	for _, c := range cases {
		t.Run(c.msg, func(t *testing.T) {
			require.Equal(t, c.want, ParseRejection(c.msg))
		})
	}
}

// Long and hostile messages are read within bounds.
func TestParseRejectionBounded(t *testing.T) {
	long := strings.Repeat("Missing required parameter 'x'. ", 100000)
	hints := ParseRejection(long)
	require.Len(t, hints, 1)
	many := ""
	for i := range 100 {
		many += "missing required parameter 'p" + strings.Repeat("a", i) + "'; "
	}
	require.Len(t, ParseRejection(many), maxHints)
	require.Empty(t, ParseRejection(strings.Repeat("'", 100000)))
}

// A phrase read two ways keeps the more specific reading.
func TestParseRejectionShadowed(t *testing.T) {
	require.Equal(t, []Hint{{Field: "departure_date", Kind: HintDate}},
		ParseRejection("Error in booking: invalid date format for 'departure_date'"))
	require.Equal(t, []Hint{{Field: "a", Kind: HintMissing}}, ParseRejection("missing parameter a"))
}
