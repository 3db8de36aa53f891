package refs

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResolveCheck(t *testing.T) {
	args := map[string]any{"id": "b1", "who": map[string]any{"name": "Ada"}}
	result := map[string]any{"confirmation": "PNR12", "legs": []any{"LHR", "JFK"}}
	for _, tc := range []struct {
		name string
		in   any
		want any
		errs []string
	}{
		{"result and args", map[string]any{"pnr": "†result.confirmation", "name": "†args.who.name"},
			map[string]any{"pnr": "PNR12", "name": "Ada"}, nil},
		{"array index", map[string]any{"to": "†result.legs.1"}, map[string]any{"to": "JFK"}, nil},
		{"first alternative that exists", "†result.ref || †args.id", "b1", nil},
		{"literal", map[string]any{"x": "plain"}, map[string]any{"x": "plain"}, nil},
		{"a run's root is not a check's", map[string]any{"x": "†state.a"}, map[string]any{"x": "†state.a"},
			[]string{`argument /x: malformed reference: "†state.a": a reference starts with "†args." or "†result."`}},
		{"missing value", map[string]any{"x": "†result.nope"}, map[string]any{"x": "†result.nope"},
			[]string{"argument /x: unresolved reference †result.nope: no such value in the checked call"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, errs := ResolveCheck(tc.in, args, result)
			require.Equal(t, tc.want, got)
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			require.Equal(t, tc.errs, msgs)
		})
	}
}

func TestParseCheckRefusesRunRoots(t *testing.T) {
	_, ok, err := ParseCheck("†input.x")
	require.True(t, ok)
	require.ErrorContains(t, err, `a reference starts with "†args." or "†result."`)
	_, _, err = Parse("†result.x")
	require.ErrorContains(t, err, `a reference starts with "†state." or "†input."`)
}
