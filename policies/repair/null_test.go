package repair

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const nullSchema = `{"type": "object",
  "properties": {
    "name": {"type": "string"},
    "reference": {"type": "string"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "address": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "string"}}, "required": ["city"]},
    "note": {"type": ["string", "null"]}
  },
  "required": ["name"]}`

// A null for an optional property is left out (newest rules); a null for
// a required one, or under the first rules, goes to the model.
func TestDropNull(t *testing.T) {
	cases := []struct {
		name, args, want string
		rules            RuleSet
	}{
		{"optional string", `{"name": "a", "reference": null}`, `{"name": "a"}`, RulesNewest},
		{"optional array", `{"name": "a", "tags": null}`, `{"name": "a"}`, RulesNewest},
		{"optional, nested", `{"name": "a", "address": {"city": "Oslo", "zip": null}}`, `{"name": "a", "address": {"city": "Oslo"}}`, RulesNewest},
		{"required", `{"name": null}`, "", RulesNewest},
		{"required, nested", `{"name": "a", "address": {"city": null}}`, "", RulesNewest},
		{"first rules", `{"name": "a", "reference": null}`, "", RulesFirst},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Repair(schemaOf(t, nullSchema), obj(t, c.args), Options{Today: today, Rules: c.rules})
			if c.want == "" {
				require.False(t, r.Valid, "repaired: %v", r.Args)
				return
			}
			require.True(t, r.Valid, r.Reason)
			require.Equal(t, canon(t, obj(t, c.want)), canon(t, r.Args))
			require.Equal(t, []string{StrategyRemoveProperty}, strategies(r))
			require.Equal(t, dropNullReason, r.Repairs[0].Reason)
		})
	}
	// A null the schema allows is no failure, and stays.
	r := Repair(schemaOf(t, nullSchema), obj(t, `{"name": "a", "note": null}`), Options{Today: today})
	require.True(t, r.Valid)
	require.Empty(t, r.Repairs)
}
