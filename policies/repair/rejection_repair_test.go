package repair

import (
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/stretchr/testify/require"
)

// looseFlight is the seed's tool as the model sees it: fewer rules than
// the server enforces (no formats, no enum, passengers optional).
const looseFlight = `{
  "type": "object",
  "properties": {
    "origin": {"type": "string"},
    "destination": {"type": "string"},
    "departure_date": {"type": "string"},
    "passengers": {"type": "integer"},
    "class": {"type": "string"}
  },
  "required": ["origin", "destination", "departure_date"]
}`

func TestRepairRejection(t *testing.T) {
	base := `{"origin": "LHR", "destination": "CDG", "departure_date": "2024-10-26", "passengers": 1, "class": "economy"}`
	with := func(field string, v any) map[string]any {
		m := obj(t, base)
		if v == nil {
			delete(m, field)
		} else {
			m[field] = v
		}
		return m
	}
	cases := []struct {
		name    string
		schema  string
		args    map[string]any
		message string
		field   string
		want    any // nil: the field is absent
		strat   string
		valid   bool
	}{
		{"date, as the seed", looseFlight, with("departure_date", "Oct 26, 2024"),
			"Parameter 'departure_date' has invalid date format. Expected YYYY-MM-DD.", "departure_date", "2024-10-26", StrategyReformatDate, true},
		{"date-time value for a date", looseFlight, with("departure_date", "2024-10-26T09:00:00"),
			"invalid date format for 'departure_date'", "departure_date", "2024-10-26T09:00:00Z", StrategyReformatDate, true},
		{"schema format wins", flightSchema, with("departure_date", "2024-10-26"),
			"invalid date format for 'departure_date'", "departure_date", "2024-10-26", "", false},
		{"minimum from the message", looseFlight, with("passengers", json.Number("0")),
			"Value for 'passengers' must be >= 1", "passengers", json.Number("1"), StrategyClamp, true},
		{"exclusive maximum from the message", looseFlight, with("passengers", json.Number("12")),
			"'passengers' must be < 10", "passengers", json.Number("9"), StrategyClamp, true},
		{"between", looseFlight, with("passengers", json.Number("40")),
			"'passengers' must be between 1 and 9", "passengers", json.Number("9"), StrategyClamp, true},
		{"enum from the message", looseFlight, with("class", "business class"),
			"Value for 'class' must be one of [economy, premium_economy, business, first]", "class", "business", StrategyCorrectEnum, true},
		{"enum without a name", looseFlight, with("class", "Premium Economy"),
			"value must be one of: economy, premium_economy, business, first", "class", "premium_economy", StrategyCorrectEnum, true},
		{"enum too far", looseFlight, with("class", "helicopter"),
			"'class' must be one of [economy, business]", "class", "helicopter", "", false},
		{"type from the message", looseFlight, with("class", json.Number("1")),
			"expected string for 'class'", "class", "1", StrategyCoerceType, true},
		{"missing, with a default", `{"type": "object", "properties": {"passengers": {"type": "integer", "default": 1}}}`,
			with("passengers", nil), "Missing required parameter 'passengers'", "passengers", json.Number("1"), StrategyDefault, true},
		{"missing, under a misspelt name", looseFlight, func() map[string]any { m := with("passengers", nil); m["pasengers"] = json.Number("2"); return m }(),
			"Missing required parameter 'passengers'", "passengers", json.Number("2"), StrategyRenameProperty, true},
		{"missing, no default: for a model", looseFlight, with("passengers", nil),
			"Missing required parameter 'passengers'", "passengers", nil, "", false},
		{"pattern: for a model", looseFlight, with("origin", "London"),
			"'origin' does not match pattern ^[A-Z]{3}$", "origin", "London", "", false},
		{"a nested parameter by dotted path", `{"type": "object"}`, map[string]any{"trip": map[string]any{"pax": json.Number("0")}},
			"value for 'trip.pax' must be >= 1", "trip", map[string]any{"pax": json.Number("1")}, StrategyClamp, true},
		{"a nested parameter by key", `{"type": "object"}`, map[string]any{"trip": map[string]any{"pax": json.Number("0")}},
			"value for 'pax' must be >= 1", "trip", map[string]any{"pax": json.Number("1")}, StrategyClamp, true},
		{"nothing readable", looseFlight, with("class", "economy"), "Internal Server Error", "class", "economy", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := canon(t, c.args)
			r := RepairRejection(schemaOf(t, c.schema), c.args, c.message, Options{Today: today})
			require.Equal(t, c.valid, r.Valid, r.Reason)
			require.NotEmpty(t, r.Reason)
			got, ok := r.Args[c.field]
			if c.want == nil {
				require.False(t, ok)
			} else {
				require.Equal(t, c.want, got)
			}
			if c.strat != "" {
				require.Equal(t, c.strat, r.Repairs[0].Strategy)
			}
			require.Equal(t, before, canon(t, c.args), "the input is never changed")
		})
	}
}

// The seed's scenario 1 through a rejection: the model will infer the
// missing count; it reads as the schema's own "required" failure.
func TestRepairRejectionMissingIsRequired(t *testing.T) {
	args := obj(t, `{"origin": "NYC", "destination": "LAX", "departure_date": "2024-01-15"}`)
	r := RepairRejection(schemaOf(t, looseFlight), args, "Missing required parameter 'passengers'", Options{})
	require.False(t, r.Valid)
	require.Len(t, r.Unrepaired, 1)
	require.Equal(t, "/", r.Unrepaired[0].At)
	require.Equal(t, &kind.Required{Missing: []string{"passengers"}}, r.Unrepaired[0].Kind)
}

// Some hints repaired, one not: the repairs are kept, and the call is not
// ready to resend.
func TestRepairRejectionPartial(t *testing.T) {
	args := obj(t, `{"origin": "LHR", "destination": "CDG", "departure_date": "Oct 26, 2024", "class": "business class"}`)
	msg := "Invalid date format for 'departure_date'; missing required parameter 'passengers'; value for 'class' must be one of [economy, business]"
	r := RepairRejection(schemaOf(t, looseFlight), args, msg, Options{})
	require.False(t, r.Valid)
	require.Equal(t, "2024-10-26", r.Args["departure_date"])
	require.Equal(t, "business", r.Args["class"])
	require.Equal(t, []string{StrategyReformatDate, StrategyCorrectEnum}, strategies(r))
	require.Len(t, r.Unrepaired, 1)
	require.Contains(t, r.Reason, "passengers")
}

// A message that contradicts the schema: the hint's repair is undone by
// the schema's and the loop guard stops it.
func TestRepairRejectionContradictsSchema(t *testing.T) {
	s := schemaOf(t, `{"type": "object", "properties": {"class": {"enum": ["Economy", "business"]}}}`)
	r := RepairRejection(s, obj(t, `{"class": "Economy"}`), "'class' must be one of [economy, business]", Options{})
	require.False(t, r.Valid)
	require.Contains(t, r.Reason, "repair loop detected")
	require.Equal(t, "economy", r.Args["class"], "the arguments before the loop")
}

func TestLocate(t *testing.T) {
	args := obj(t, `{"a": {"b": [{"c": 1}], "x": {"k": 1}}, "y": {"k": 2}, "a.b": 3, "z": {"q": 1}}`)
	cases := []struct {
		field  string
		steps  []string
		exists bool
		ok     bool
	}{
		{"a.b", []string{"a.b"}, true, true},
		{"a.x.k", []string{"a", "x", "k"}, true, true},
		{"a.b[0].c", []string{"a", "b", "0", "c"}, true, true},
		{"/a/b/0/c", []string{"a", "b", "0", "c"}, true, true},
		{"q", []string{"z", "q"}, true, true},
		{"k", []string{"k"}, false, true}, // two of them: not found, a top-level missing one
		{"a.new", []string{"a", "new"}, false, true},
		{"nope.deeper", nil, false, false},
		{"", nil, false, false},
	}
	for _, c := range cases {
		steps, exists, ok := locate(args, c.field)
		require.Equal(t, c.ok, ok, c.field)
		require.Equal(t, c.exists, exists, c.field)
		require.Equal(t, c.steps, steps, c.field)
	}
}
