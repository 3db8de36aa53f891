package repair

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// readWritten reads one number from text as people write it, or refuses
// text with more than one reading.
func TestReadWritten(t *testing.T) {
	cases := []struct {
		in       string
		value    string // as a rational's decimal text; "" refused
		currency string
		percent  bool
	}{
		{"$25.99", "25.99", "$", false},
		{"€75", "75", "€", false},
		{"75 €", "75", "€", false},
		{"25 USD", "25", "USD", false},
		{"25usd", "25", "USD", false},
		{"USD 1,250.50", "1250.5", "USD", false},
		{"US$ 10", "10", "US$", false},
		{"-$25", "-25", "$", false},
		{"$-25", "-25", "$", false},
		{"1,250.50", "1250.5", "", false},
		{"1,250,000", "1250000", "", false},
		{"1.250.000", "1250000", "", false},
		{"1.250,50", "1250.5", "", false},
		{"1 250,50", "1250.5", "", false},
		{"1\u00a0250,50", "1250.5", "", false},
		{"1\u202f250", "1250", "", false},
		{"1'250.50", "1250.5", "", false},
		{"15%", "15", "", true},
		{"15 %", "15", "", true},
		{"12.5%", "12.5", "", true},
		// Refused: more than one reading, or not a number.
		{"1,250", "", "", false},
		{"2,5", "", "", false},
		{"12,50.5", "", "", false},
		{"1,2,3", "", "", false},
		{"1 250.000,5", "", "", false},
		{"1,250.50.3", "", "", false},
		{"1 25", "", "", false},
		{"$$25", "", "", false},
		{"$25%", "", "", false},
		{"25 ABC", "", "", false},
		{"25 XAU", "", "", false},
		{"USDX25", "", "", false},
		{"a lot", "", "", false},
		{"seventy two", "", "", false},
		{"25", "", "", false}, // plain: parseNumber's, not this rule's
		{"$", "", "", false},
		{"%", "", "", false},
		{"", "", "", false},
		{"\xff25", "", "", false},
		{"$" + string(make([]byte, 100)), "", "", false},
		{"1,000,000,000,000,000,000,000,000,000,000,000,000,000,000,000,000", "", "", false},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			w, ok := readWritten(c.in)
			require.Equal(t, c.value != "", ok)
			if !ok {
				return
			}
			require.Equal(t, c.value, string(ratNumber(w.value)))
			require.Equal(t, c.currency, w.currency)
			require.Equal(t, c.percent, w.percent)
		})
	}
}

// Through Repair: the schema at the location settles a percentage, a
// sibling currency may contradict the written one, an integer takes only
// a whole number.
func TestRepairWrittenNumbers(t *testing.T) {
	const schema = `{"type": "object", "properties": {
		"amount": {"type": "number"},
		"currency": {"type": "string"},
		"count": {"type": "integer"},
		"rate": {"type": "number", "minimum": 0, "maximum": 1},
		"discount": {"type": "number", "description": "Discount in percent"},
		"tip": {"type": "integer", "title": "Tip %"},
		"share": {"type": "number"}},
		"additionalProperties": false}`
	cases := []struct {
		name, args, want string // want "" when it goes to the model
	}{
		{"currency symbol", `{"amount": "$25.99"}`, `{"amount":25.99}`},
		{"currency code after", `{"amount": "25 USD"}`, `{"amount":25}`},
		{"thousands", `{"amount": "1,250.50"}`, `{"amount":1250.5}`},
		{"european", `{"amount": "1 250,50 €"}`, `{"amount":1250.5}`},
		{"agrees with the sibling currency", `{"amount": "€75", "currency": "EUR"}`, `{"amount":75,"currency":"EUR"}`},
		{"dollar agrees with CAD", `{"amount": "$75", "currency": "cad"}`, `{"amount":75,"currency":"cad"}`},
		{"contradicts the sibling currency", `{"amount": "€75", "currency": "USD"}`, ""},
		{"sibling currency not a code", `{"amount": "€75", "currency": "euros"}`, ""},
		{"integer from 10.0", `{"count": "10.0"}`, `{"count":10}`},
		{"integer from grouped", `{"count": "1,250,000"}`, `{"count":1250000}`},
		{"integer from 10.00 USD", `{"count": "10.00 USD"}`, `{"count":10}`},
		{"integer 1,250 is ambiguous", `{"count": "1,250"}`, ""},
		{"number 1,250 is ambiguous", `{"amount": "1,250"}`, ""},
		{"integer from a fraction", `{"count": "$2.50"}`, ""},
		{"words", `{"count": "a lot"}`, ""},
		{"percent as a fraction by maximum", `{"rate": "15%"}`, `{"rate":0.15}`},
		{"percent by description", `{"discount": "15%"}`, `{"discount":15}`},
		{"percent by title, integer", `{"tip": "20 %"}`, `{"tip":20}`},
		{"percent the schema does not settle", `{"share": "15%"}`, ""},
		{"hundreds of digits", `{"amount": "$1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Repair(schemaOf(t, schema), obj(t, c.args), Options{})
			if c.want == "" {
				require.False(t, r.Valid, "guessed: %s", canon(t, r.Args))
				require.NotEmpty(t, r.Unrepaired)
				return
			}
			require.True(t, r.Valid, r.Reason)
			require.Equal(t, c.want, canon(t, r.Args))
			require.Len(t, r.Repairs, 1)
			require.NotEmpty(t, r.Repairs[0].Reason)
			require.NotNil(t, r.Repairs[0].Before)
			require.NotNil(t, r.Repairs[0].After)
		})
	}
}

// The repair records the rule and the values before and after.
func TestRepairWrittenNumberRecord(t *testing.T) {
	r := Repair(schemaOf(t, `{"type": "object", "properties": {"amount": {"type": "number"}}}`),
		obj(t, `{"amount": "$1,250.50"}`), Options{})
	require.True(t, r.Valid, r.Reason)
	require.Equal(t, []Applied{{Strategy: StrategyReadNumber, Path: "/amount", Before: "$1,250.50", After: json.Number("1250.5"),
		Reason: "a number written as people write it: the currency $ dropped, the thousands separators dropped"}}, r.Repairs)
}
