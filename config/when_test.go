package config

import (
	"testing"

	"github.com/expr-lang/expr"
	"github.com/stretchr/testify/require"
)

func TestCompileWhen(t *testing.T) {
	env := WhenEnv{
		OK:     false,
		Error:  "timeout",
		State:  map[string]any{"done": true, "n": 3},
		Input:  map[string]any{"q": "x"},
		Visits: map[string]int{"A": 2},
		Meter:  &tally{},
	}
	cases := map[string]bool{
		"ok":                    false,
		"!ok":                   true,
		"state.done == true":    true,
		"state.n > 2":           true,
		"input.q == 'x'":        true,
		"visits.A >= 3":         false,
		"error contains 'time'": true,
		"state.missing == nil":  true,
	}
	for when, want := range cases {
		p, err := CompileWhen(when)
		require.NoError(t, err, when)
		got, err := expr.Run(p, env)
		require.NoError(t, err, when)
		require.Equal(t, want, got, when)
	}
	for _, bad := range []string{"now() != nil", "1 + 1", "ok &&", "nope"} {
		_, err := CompileWhen(bad)
		require.Error(t, err, bad)
	}
}

func TestIsRef(t *testing.T) {
	for s, want := range map[string]bool{
		"†state.a":                 true,
		"†input.q":                 true,
		"†state.a.b.0":             true,
		"†state.a || †input.a":     true,
		"†state.a||†input.a":       true,
		"†state":                   false,
		"†state.":                  false,
		"†output.a":                false,
		"state.a":                  false,
		"†state.a || input.a":      false,
		"†state.a b":               false,
		"†state.a || †input.a || ": false,
	} {
		require.Equal(t, want, IsRef(s), s)
	}
}
