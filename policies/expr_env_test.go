package policies

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
	refpkg "github.com/unstuck-dev/unstuck/refs"
)

// Numbers compare as numbers in a check's condition: ints and floats,
// across args and result, large integers exactly.
func TestVerifyComparesNumbers(t *testing.T) {
	for _, tc := range []struct {
		condition, args, result string
		want                    bool
	}{
		{"result.total > 0", `{}`, `{"total": 3}`, true},
		{"result.total > 0", `{}`, `{"total": 0}`, false},
		{"result.total == 2", `{}`, `{"total": 2}`, true},
		{"result.total == 2", `{}`, `{"total": 2.0}`, true},
		{"result.total == 2", `{}`, `{"total": 3}`, false},
		{"result.total != 2", `{}`, `{"total": 2}`, false},
		{"result.price >= 9.99 && result.price < 10.5", `{}`, `{"price": 10.25}`, true},
		{"result.rate == 0.1", `{}`, `{"rate": 0.1}`, true},
		{"result.rate > 1e-3", `{}`, `{"rate": 2E-3}`, true},
		{"result.temp < 0", `{}`, `{"temp": -4.5}`, true},
		{"result.amount == args.amount", `{"amount": 120}`, `{"amount": 120.0}`, true},
		{"result.amount == args.amount", `{"amount": 120}`, `{"amount": 121}`, false},
		{"result.paid >= args.amount", `{"amount": 99.5}`, `{"paid": 100}`, true},
		{"result.balance == args.before - args.amount", `{"before": 500, "amount": 120}`, `{"balance": 380}`, true},
		{"result.n == 9007199254740993", `{}`, `{"n": 9007199254740993}`, true},
		{"result.n > 9007199254740992", `{}`, `{"n": 9007199254740993}`, true},
		// Past int64 a number stays its text: equal only to the same number.
		{"result.id == args.id", `{"id": 123456789012345678901234567890}`, `{"id": 123456789012345678901234567890}`, true},
		{"result.id == args.id", `{"id": 123456789012345678901234567890}`, `{"id": 123456789012345678901234567891}`, false},
		{"all(result.items, {.qty > 0}) && len(result.items) == result.count", `{}`, `{"items": [{"qty": 1}, {"qty": 2.5}], "count": 2}`, true},
		{"result[1] == 2", `{}`, `[1, 2]`, true},
		{"result == 7", `{}`, `7`, true},
		{"result.free > 0", `not json`, `{"free": 3}`, true},
	} {
		t.Run(tc.condition+" "+tc.result, func(t *testing.T) {
			prog, err := config.CompileVerify(tc.condition)
			require.NoError(t, err)
			held, err := RunCondition(prog, VerifyEnv(json.RawMessage(tc.args), json.RawMessage(tc.result)))
			require.NoError(t, err)
			require.Equal(t, tc.want, held)
		})
	}
}

// A graph edge's condition reads State and the input as the run holds
// them (refs.State): numbers compare as numbers there too.
func TestWhenComparesNumbers(t *testing.T) {
	var state, input refpkg.State
	require.NoError(t, json.Unmarshal([]byte(`{"n": 3, "p": 2.5, "id": 123456789012345678901234567890}`), &state))
	require.NoError(t, json.Unmarshal([]byte(`{"limit": 5, "min": 2.0}`), &input))
	env := config.WhenEnv{OK: true, State: state, Input: input, Visits: map[string]int{"A": 2}}
	for _, tc := range []struct {
		condition string
		want      bool
	}{
		{"state.n > 0", true},
		{"state.n == 3", true},
		{"state.p < 3 && state.p > 2", true},
		{"input.limit >= state.n", true},
		{"state.n == input.min", false},
		{"visits.A < input.limit", true},
		{`string(state.id) == "123456789012345678901234567890"`, true},
	} {
		t.Run(tc.condition, func(t *testing.T) {
			prog, err := config.CompileWhen(tc.condition)
			require.NoError(t, err)
			held, err := RunCondition(prog, env)
			require.NoError(t, err)
			require.Equal(t, tc.want, held)
		})
	}
}

// Before ExprValue a check read numbers as json.Number, which expr-lang
// does not compare with a number: the run's old evaluation
// (workflows.versionExprNumbers) still does.
func TestJSONNumberDoesNotCompare(t *testing.T) {
	raw := func(s string) any { v, err := DecodeJSON([]byte(s)); require.NoError(t, err); return v }
	env := config.VerifyEnv{Result: raw(`{"total": 2}`)}
	prog, err := config.CompileVerify("result.total > 0")
	require.NoError(t, err)
	_, err = RunCondition(prog, env)
	require.ErrorContains(t, err, "invalid operation: json.Number > int")
	prog, err = config.CompileVerify("result.total == 2")
	require.NoError(t, err)
	held, err := RunCondition(prog, env)
	require.NoError(t, err)
	require.False(t, held)
}
