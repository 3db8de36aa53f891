package policies

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

// items is a result {"items": [{"id": 0}, ...]} of n items.
func items(n int) json.RawMessage {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"id": %d}`, i)
	}
	return json.RawMessage(`{"items": [` + strings.Join(parts, ",") + `]}`)
}

// A condition's evaluation is bounded: a loop in a loop over a long list
// stops at ExprBudget, a clear error, well within a workflow task's
// deadline (unbounded, the first row took 12 s on a loaded machine, where the SDK fails a workflow task that does not yield within 1 s).
func TestRunConditionIsBounded(t *testing.T) {
	for _, tc := range []struct {
		condition string
		n         int
		over      bool
	}{
		{"all(result.items, {let a = #; none(result.items, {.id == a.id + 100000})})", 5000, true},
		{"all(result.items, {all(result.items, {all(result.items, {.id >= 0})})})", 200, true},
		{"all(result.items, {let a = #; none(result.items, {.id == a.id + 100000})})", 250, false},
		{"all(result.items, {.id >= 0}) && count(result.items, .id > 3) > 1 && sortBy(result.items, .id)[0].id == 0", 20000, false},
	} {
		t.Run(fmt.Sprint(tc.n, " ", tc.condition), func(t *testing.T) {
			prog, err := config.CompileVerify(tc.condition)
			require.NoError(t, err)
			start := time.Now()
			held, err := RunCondition(prog, VerifyEnv(nil, items(tc.n)))
			require.Less(t, time.Since(start), 5*time.Second)
			requireHeldOrOver(t, held, err, tc.over)
		})
	}
}

// requireHeldOrOver: an evaluation went over its bound when over, else
// held.
func requireHeldOrOver(t *testing.T, held bool, err error, over bool) {
	t.Helper()
	if over {
		require.ErrorIs(t, err, ErrOverBudget)
		require.False(t, held)
		return
	}
	require.NoError(t, err)
	require.True(t, held)
}

func TestConditionCheck(t *testing.T) {
	prog, err := config.CompileVerify("result.free > args.min")
	require.NoError(t, err)
	args, result := map[string]any{"min": json.Number("1")}, map[string]any{"free": json.Number("0")}
	ck := ConditionCheck("verify", "verify", "result.free > args.min", prog.Node(), args, result, true, nil)
	require.True(t, ck.Passed)
	require.Empty(t, ck.Reason)

	ck = ConditionCheck("verify", "verify", "result.free > args.min", prog.Node(), args, result, false, nil)
	require.False(t, ck.Passed)
	require.Equal(t, `verify "result.free > args.min" is false: result.free = 0, args.min = 1`, ck.Reason)
	require.Len(t, ck.Seen, 2)

	ck = ConditionCheck("verify", "verify", "result.free > args.min", prog.Node(), args, result, false, ErrOverBudget)
	require.False(t, ck.Passed)
	require.Equal(t, `verify "result.free > args.min" could not be evaluated: `+ErrOverBudget.Error(), ck.Reason)
	require.Contains(t, ck.Reason, "cost bound of 4000000 units")
}

// A condition is bounded in size where the file is loaded.
func TestConditionSizeIsBounded(t *testing.T) {
	_, err := config.CompileVerify(strings.Repeat("result.a == 1 || ", 300) + "true")
	require.ErrorContains(t, err, "exceeds maximum allowed nodes")
	_, err = config.CompileWhen(strings.Repeat("ok || ", 1200) + "ok")
	require.ErrorContains(t, err, "exceeds maximum allowed nodes")
	_, err = config.CompileVerifyUnbounded(strings.Repeat("result.a == 1 || ", 300) + "true")
	require.NoError(t, err)
}
