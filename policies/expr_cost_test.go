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

// large is a result of about 1.5 MiB: 2000 items of about 700 bytes, and
// two strings of 100 KB.
func large(t testing.TB) json.RawMessage {
	type item struct {
		ID   int      `json:"id"`
		Name string   `json:"name"`
		Tags []string `json:"tags"`
		Note string   `json:"note"`
	}
	r := struct {
		Items []item `json:"items"`
		Blob  string `json:"blob"`
		Blob2 string `json:"blob2"`
	}{Blob: strings.Repeat("abcdefghij", 10_000), Blob2: strings.Repeat("abcdefghij", 10_000)}
	for i := range 2000 {
		r.Items = append(r.Items, item{ID: i, Name: fmt.Sprint("item-", i), Tags: []string{"a", "b"}, Note: strings.Repeat("n", 640)})
	}
	raw, err := json.Marshal(r)
	require.NoError(t, err)
	require.Greater(t, len(raw), 1_500_000)
	return raw
}

// Hostile conditions over a large result end at the cost bound, quickly;
// ordinary ones are evaluated. The times are logged (go test -v): each
// costly row took seconds to minutes unbounded, past the workflow task's
// deadline of a second.
func TestHostileConditionsEndAtTheCostBound(t *testing.T) {
	env := VerifyEnv(nil, large(t))
	for _, tc := range []struct {
		condition string
		over      bool
	}{
		{"all(result.items, {toJSON(result) != ''})", true},
		{"all(result.items, {let a = #; none(result.items, {.id == a.id + 100000})})", true},
		{"all(result.items, {all(result.items, {all(result.items, {.id >= 0})})})", true},
		{"repeat('x', 100000000) != ''", true},
		{"reduce(1..64, #acc + #acc, 'x') != ''", true},
		{"all(1..100000000, {# > 0})", true},
		{"all(result.items, {upper(toJSON(result.items)) != ''})", true},
		{"all(result.items, {len(split(result.blob, 'a')) > 0})", true},
		{"all(result.items, {join(map(result.items, .name), ',') != ''})", true},
		{"all(result.items, {replace(result.blob, 'a', 'b') != ''})", true},
		{"all(result.items, {lower(result.blob) != ''})", true},
		{"all(result.items, {not (result.blob matches 'z+$')})", true},
		{"all(result.items, {result.blob == result.blob2})", true},
		{"all(result.items, {result == result})", true},
		{"all(result.items, {# in result.items})", true},
		{"all(result.items, {sortBy(result.items, .id)[0].id == 0})", true},
		{"all(result.items, {fromJSON(toJSON(result.items)) != nil})", true},
		{"all(result.items, {toJSON($env) != ''})", true},
		{"all(result.items, {string(result) != ''})", true},
		{"all(result.items, {max(map(result.items, .id)) > 0})", true},
		{"fromJSON(toJSON(result)).items[0].id == 0", false},
		{"all(result.items, {.id >= 0 && .name startsWith 'item-'}) && len(result.items) == 2000", false},
		{"count(result.items, 'b' in .tags) == 2000 && sum(map(result.items, .id)) == 1999000", false},
		{"sortBy(result.items, .id, 'desc')[0].id == 1999 && findIndex(result.items, .name == 'item-7') == 7", false},
		{"all(result.items, {.id < len(result.items) && len(.note) == 640})", false},
		{"all(result.items, {fromJSON(toJSON(#)).id == #.id})", false},
		{"len(result.blob) == 100000 && result.blob startsWith 'abc' && upper(result.blob[0:3]) == 'ABC'", false},
		{"toJSON(result.items[0]) contains 'item-0' && len(filter(result.items, .id % 2 == 0)) == 1000", false},
		{"all(result.items, {int(string(.id)) == .id && float(.id) >= 0})", false},
	} {
		t.Run(tc.condition, func(t *testing.T) {
			prog, err := config.CompileVerify(tc.condition)
			require.NoError(t, err)
			start := time.Now()
			held, err := RunCondition(prog, env)
			took := time.Since(start)
			t.Logf("%8.1f ms  over=%v  %s", float64(took.Microseconds())/1000, err != nil, tc.condition)
			requireHeldOrOver(t, held, err, tc.over)
		})
	}
}

// What the meter charges: bytes of strings, items of lists and maps with
// their keys, nested; numbers free; a map's keys and a range's items.
func TestExprCostCharges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		charge func(c *ExprCost) error
		want   int
	}{
		{"step", func(c *ExprCost) error { return c.Step() }, StepCost},
		{"string", func(c *ExprCost) error { return c.Charge("hello") }, 5},
		{"number", func(c *ExprCost) error { return c.Charge(json.Number("12345")) }, 5},
		{"int", func(c *ExprCost) error { return c.Charge(12345) }, 0},
		{"list", func(c *ExprCost) error { return c.Charge([]any{"ab", 1, []any{"c"}}) }, 3 + 2 + 1 + 1},
		{"map", func(c *ExprCost) error { return c.Charge(map[string]any{"ab": "cde", "f": nil}) }, 2 + 2 + 3 + 1},
		{"strings", func(c *ExprCost) error { return c.Charge([]string{"ab", "c"}) }, 2 + 3},
		{"env", func(c *ExprCost) error { return c.Charge(config.VerifyEnv{Result: "abc", Meter: c}) }, 3},
		{"repeat", func(c *ExprCost) error { return c.Times("ab", 3) }, 6},
		{"range", func(c *ExprCost) error { return c.Span(2, 11) }, 10},
		{"in a list", func(c *ExprCost) error { return c.Within([]any{"ab", "c"}) }, 2 + 3},
		{"in a map", func(c *ExprCost) error { return c.Within(map[string]any{"ab": "c"}) }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &ExprCost{}
			require.NoError(t, tc.charge(c))
			require.Equal(t, tc.want, c.Spent())
		})
	}
}

// Past the bound the meter answers ErrOverBudget, and sizing a value
// larger than what is left stops early, over the bound whatever a map's
// order.
func TestExprCostStopsAtItsBound(t *testing.T) {
	c := &ExprCost{}
	require.ErrorIs(t, c.Times("x", 100_000_000), ErrOverBudget)
	c = &ExprCost{}
	require.ErrorIs(t, c.Span(1, 1<<40), ErrOverBudget)
	big := map[string]any{}
	for i := range 5000 {
		big[fmt.Sprint(i)] = strings.Repeat("x", 1000)
	}
	for range 5 {
		c = &ExprCost{}
		require.ErrorIs(t, c.Charge(big), ErrOverBudget)
		require.Less(t, c.Spent(), ExprBudget+1100, "sizing stopped at the bound")
	}
	c = &ExprCost{spent: ExprBudget - StepCost}
	require.NoError(t, c.Step())
	require.ErrorIs(t, c.Step(), ErrOverBudget)
}
