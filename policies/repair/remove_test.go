package repair

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRepairExtraProperties(t *testing.T) {
	closed := `{"type": "object", "properties": {"departure_date": {"type": "string"}, "passengers": {"type": "integer"}},
		"additionalProperties": false}`
	cases := []struct {
		name   string
		schema string
		args   string
		want   string
		strats []string
		valid  bool
	}{
		{"noise removed", closed, `{"passengers": 1, "notes": "aisle"}`, `{"passengers": 1}`,
			[]string{StrategyRemoveProperty}, true},
		{"camel case renamed", closed, `{"departureDate": "2024-01-01"}`, `{"departure_date": "2024-01-01"}`,
			[]string{StrategyRenameProperty}, true},
		{"typo renamed", closed, `{"pasengers": 2}`, `{"passengers": 2}`,
			[]string{StrategyRenameProperty}, true},
		{"present already: removed", closed, `{"passengers": 1, "Passengers": 2}`, `{"passengers": 1}`,
			[]string{StrategyRemoveProperty}, true},
		{"two claims on one name: neither moved", closed, `{"Passengers": 2, "passenger": 3}`, `{"Passengers": 2, "passenger": 3}`,
			nil, false},
		{"false schema", `{"type": "object", "properties": {"x": false}}`, `{"x": 1}`, `{}`,
			[]string{StrategyRemoveProperty}, true},
		{"unevaluatedProperties", `{"type": "object", "properties": {"a": {}}, "unevaluatedProperties": false}`,
			`{"a": 1, "b": 2}`, `{"a": 1}`, []string{StrategyRemoveProperty}, true},
		{"nested", `{"type": "object", "properties": {"p": {"type": "object", "properties": {"adults": {}}, "additionalProperties": false}}}`,
			`{"p": {"adults": 1, "kids": 0}}`, `{"p": {"adults": 1}}`, []string{StrategyRemoveProperty}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Repair(schemaOf(t, c.schema), obj(t, c.args), Options{})
			require.Equal(t, c.valid, r.Valid, r.Reason)
			require.Equal(t, canon(t, obj(t, c.want)), canon(t, r.Args))
			require.Equal(t, c.strats, strategies(r))
		})
	}
}

func TestRemoveRecordsValue(t *testing.T) {
	r := Repair(schemaOf(t, `{"type": "object", "additionalProperties": false}`), obj(t, `{"a/b": [1]}`), Options{})
	require.True(t, r.Valid)
	require.Equal(t, []Applied{{Strategy: StrategyRemoveProperty, Path: "/a~1b", Before: []any{json.Number("1")}, Reason: removeReason}}, r.Repairs)
}
