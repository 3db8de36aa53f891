package config

import (
	"testing"

	"github.com/expr-lang/expr"
	"github.com/stretchr/testify/require"
)

// tally is a meter that counts without a bound.
type tally struct{ steps, units int }

func (t *tally) Step() error             { t.steps++; return nil }
func (t *tally) Charge(v any) error      { t.units += size(v); return nil }
func (t *tally) Times(s, n any) error    { t.units += len(s.(string)) * n.(int); return nil }
func (t *tally) Span(from, to any) error { t.units += to.(int) - from.(int) + 1; return nil }
func (t *tally) Within(v any) error      { t.units += size(v); return nil }

func size(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case []any:
		return len(x)
	}
	return 0
}

// A condition with a cost bound counts each step of its loops and what
// its operations read on the env's meter, and answers as it would
// without.
func TestBoundedConditionCountsOnItsMeter(t *testing.T) {
	result := map[string]any{"items": []any{"ab", "cd", "ef"}, "text": "hello"}
	for _, tc := range []struct {
		condition    string
		steps, units int
	}{
		{"all(result.items, {# != ''})", 3, 0},
		{"all(result.items, {# != result.text})", 3, 6 + 15},
		{"upper(result.text) == 'HELLO'", 0, 5},
		{"result.text + 'x' != result.text", 0, 5 + 6 + 5},
		{"len(result.text) == 5 && len(result.items) == 3", 0, 0},
		{"'cd' in result.items", 0, 3},
		{"repeat('ab', 3) == 'ababab'", 0, 6},
		{"len(1..4) == 4", 0, 4},
		{"count(result.items, {len(#) == 2}) == 3 && result.text startsWith 'he'", 3, 5},
	} {
		t.Run(tc.condition, func(t *testing.T) {
			prog, err := CompileVerify(tc.condition)
			require.NoError(t, err)
			m := &tally{}
			got, err := expr.Run(prog, VerifyEnv{Result: result, Meter: m})
			require.NoError(t, err)
			require.Equal(t, true, got)
			require.Equal(t, tc.steps, m.steps, "steps")
			require.Equal(t, tc.units, m.units, "units")
		})
	}
}

// Without its meter a bounded condition is not evaluated, rather than
// evaluated unbounded.
func TestBoundedConditionNeedsItsMeter(t *testing.T) {
	prog, err := CompileVerify("all(result, {# != ''})")
	require.NoError(t, err)
	_, err = expr.Run(prog, VerifyEnv{Result: []any{"a"}})
	require.ErrorIs(t, err, errNoMeter)
}

// The names the cost bound adds are refused in a condition as written,
// in every form a condition may name them.
func TestConditionCannotNameTheMeter(t *testing.T) {
	for _, c := range []string{
		`$env["unstuck·meter"] != nil`,
		`$env["unstuck·step"] != nil`,
		`let x = "unstuck·v"; x != ""`,
	} {
		_, err := CompileVerify(c)
		require.ErrorContains(t, err, "is a name reserved for the cost bound", c)
		_, err = CompileWhen(c)
		require.ErrorContains(t, err, "is a name reserved for the cost bound", c)
	}
	// The meter is not a value of a condition as written.
	_, err := CompileVerify("unstuck·meter != nil")
	require.Error(t, err)
}

// The patch keeps each value's type: a condition that is not a bool is
// refused with the bound as without it.
func TestBoundedConditionKeepsTypes(t *testing.T) {
	for _, c := range []string{"error + 'x'", "upper(error)", "toJSON(state)", "1..3", "visits.A + 1", "repeat(error, 2)"} {
		_, err := CompileWhen(c)
		require.ErrorContains(t, err, "expected bool", c)
	}
}
