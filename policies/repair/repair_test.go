package repair

import (
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/stretchr/testify/require"
)

// The seed's second scenario: "Oct 26, 2024" and "business class" are
// mended without a model request.
func TestRepairSeedDateAndClass(t *testing.T) {
	args := obj(t, `{"origin": "LHR", "destination": "CDG", "departure_date": "Oct 26, 2024", "passengers": 1, "class": "business class"}`)
	before := canon(t, args)
	r := Repair(schemaOf(t, flightSchema), args, Options{})
	require.True(t, r.Valid, r.Reason)
	require.Equal(t, "2024-10-26", r.Args["departure_date"])
	require.Equal(t, "business", r.Args["class"])
	require.Equal(t, []string{StrategyReformatDate, StrategyCorrectEnum}, strategies(r))
	require.Equal(t, "/departure_date", r.Repairs[0].Path)
	require.Equal(t, "Oct 26, 2024", r.Repairs[0].Before)
	require.Empty(t, r.Unrepaired)
	require.Equal(t, before, canon(t, args), "the input is never changed")
}

// The seed's first scenario: a missing passengers count is left for a
// focused model request, unless the schema gives a default.
func TestRepairMissingPassengers(t *testing.T) {
	args := obj(t, `{"origin": "NYC", "destination": "LAX", "departure_date": "2024-01-15"}`)

	r := Repair(schemaOf(t, flightSchema), args, Options{})
	require.False(t, r.Valid)
	require.Empty(t, r.Repairs)
	require.Len(t, r.Unrepaired, 1)
	require.Equal(t, "/", r.Unrepaired[0].At)
	require.Equal(t, &kind.Required{Missing: []string{"passengers"}}, r.Unrepaired[0].Kind)
	require.Contains(t, r.Reason, "passengers")

	withDefault := schemaOf(t, flightSchema)
	withDefault["properties"].(map[string]any)["passengers"].(map[string]any)["default"] = 1
	r = Repair(withDefault, args, Options{})
	require.True(t, r.Valid, r.Reason)
	require.Equal(t, json.Number("1"), r.Args["passengers"])
	require.Equal(t, []Applied{{Strategy: StrategyDefault, Path: "/passengers", After: json.Number("1"), Reason: "missing: the schema's default"}}, r.Repairs)
}

// Every strategy at once, in one call, each failure at its own place.
func TestRepairManyAtOnce(t *testing.T) {
	args := obj(t, `{"origin": "LHR", "destination": "CDG", "departure_date": "26.10.2024",
		"return_date": "2024-11-02T18:30:00+01:00", "passengers": "12", "class": "Premium Economy",
		"departureTime": "x", "notes": "window please"}`)
	r := Repair(schemaOf(t, flightSchema), args, Options{})
	require.True(t, r.Valid, r.Reason)
	require.Equal(t, canon(t, obj(t, `{"origin": "LHR", "destination": "CDG", "departure_date": "2024-10-26",
		"return_date": "2024-11-02", "passengers": 9, "class": "premium_economy"}`)), canon(t, r.Args))
	require.ElementsMatch(t, []string{StrategyRemoveProperty, StrategyRemoveProperty, StrategyCoerceType, StrategyReformatDate,
		StrategyReformatDate, StrategyCorrectEnum, StrategyClamp}, strategies(r))
}

// Already valid arguments come back as they are, in a fresh copy.
func TestRepairValidUnchanged(t *testing.T) {
	args := obj(t, `{"origin": "NYC", "destination": "LAX", "departure_date": "2024-01-15", "passengers": 2}`)
	r := Repair(schemaOf(t, flightSchema), args, Options{})
	require.True(t, r.Valid)
	require.Empty(t, r.Repairs)
	require.Equal(t, "arguments are valid", r.Reason)
	require.Equal(t, canon(t, args), canon(t, r.Args))
	r.Args["origin"] = "changed"
	require.Equal(t, "NYC", args["origin"], "Args is a copy")
}

// A misspelt property is renamed rather than removed, so that its value
// survives and no default replaces it.
func TestRepairRenamesMisspeltProperty(t *testing.T) {
	s := schemaOf(t, flightSchema)
	s["properties"].(map[string]any)["passengers"].(map[string]any)["default"] = 1
	args := obj(t, `{"origin": "NYC", "destination": "LAX", "departureDate": "2024-01-15", "pasengers": 3}`)
	r := Repair(s, args, Options{})
	require.True(t, r.Valid, r.Reason)
	require.Equal(t, "2024-01-15", r.Args["departure_date"])
	require.Equal(t, json.Number("3"), r.Args["passengers"])
	require.Equal(t, []string{StrategyRenameProperty, StrategyRenameProperty}, strategies(r))
}

// Repairs that need another round (wrap, then convert the item) get it,
// and MaxRounds bounds them.
func TestRepairRounds(t *testing.T) {
	s := schemaOf(t, `{"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "integer"}}}}`)
	args := obj(t, `{"ids": "7"}`)
	r := Repair(s, args, Options{})
	require.True(t, r.Valid, r.Reason)
	require.Equal(t, []any{json.Number("7")}, r.Args["ids"])
	require.Equal(t, []string{StrategyCoerceType, StrategyCoerceType}, strategies(r))
	require.Equal(t, "/ids/0", r.Repairs[1].Path)

	r = Repair(s, args, Options{MaxRounds: 1})
	require.False(t, r.Valid)
	require.Contains(t, r.Reason, "after 1 round")
	require.Equal(t, []any{"7"}, r.Args["ids"])
	require.Len(t, r.Unrepaired, 1)
}

// A -> B -> A: two parts of a schema that undo each other's repair stop
// the repair at the second round rather than going round until
// MaxRounds.
func TestRepairLoopGuard(t *testing.T) {
	s := schemaOf(t, `{"type": "object", "properties": {"n": {"allOf": [{"type": "integer"}, {"type": "string"}]}}}`)
	args := obj(t, `{"n": "2"}`)
	r := Repair(s, args, Options{MaxRounds: 10})
	require.False(t, r.Valid)
	require.Contains(t, r.Reason, "repair loop detected")
	require.Equal(t, json.Number("2"), r.Args["n"], "the last arguments before the loop")
	require.Equal(t, []string{StrategyCoerceType}, strategies(r), "the looping round is not kept")
	require.NotEmpty(t, r.Unrepaired)
}

// The guard itself: a second sight of the same canonical JSON is refused.
func TestSeenGuard(t *testing.T) {
	g := seen{}
	require.True(t, g.add([]byte(`{"n":"2"}`)))
	require.True(t, g.add([]byte(`{"n":2}`)))
	require.False(t, g.add([]byte(`{"n":"2"}`)))
}

// What needs judgement is never guessed.
func TestRepairLeavesJudgement(t *testing.T) {
	cases := []struct {
		name string
		args string
	}{
		{"ambiguous day and month", `{"origin": "NYC", "destination": "LAX", "departure_date": "03/04/2024", "passengers": 1}`},
		{"pattern", `{"origin": "New York", "destination": "LAX", "departure_date": "2024-03-04", "passengers": 1}`},
		{"unrelated enum value", `{"origin": "NYC", "destination": "LAX", "departure_date": "2024-03-04", "passengers": 1, "class": "helicopter"}`},
		{"fraction for an integer", `{"origin": "NYC", "destination": "LAX", "departure_date": "2024-03-04", "passengers": 2.5}`},
		{"relative date", `{"origin": "NYC", "destination": "LAX", "departure_date": "next Tuesday", "passengers": 1}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Repair(schemaOf(t, flightSchema), obj(t, c.args), Options{Today: today})
			require.False(t, r.Valid)
			require.Empty(t, r.Repairs)
			require.NotEmpty(t, r.Unrepaired)
			require.Contains(t, r.Reason, "no deterministic repair")
		})
	}
}

// Schema problems and non-JSON arguments are reported, not panicked on.
func TestRepairBadInput(t *testing.T) {
	r := Repair(map[string]any{"type": 5}, obj(t, `{}`), Options{})
	require.False(t, r.Valid)
	require.Contains(t, r.Reason, "invalid JSON Schema")

	r = Repair(schemaOf(t, flightSchema), map[string]any{"x": json.Number("abc")}, Options{})
	require.False(t, r.Valid)
	require.Nil(t, r.Args)
	require.Contains(t, r.Reason, "not JSON")

	r = Repair(map[string]any{"type": "object"}, nil, Options{})
	require.True(t, r.Valid)
	require.Equal(t, map[string]any{}, r.Args)
}
