package signals

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBudgetRequestValidate(t *testing.T) {
	cases := []struct {
		name string
		req  BudgetRequest
		err  string
	}{
		{name: "stop", req: BudgetRequest{Stop: true}},
		{name: "raise", req: BudgetRequest{Raise: &BudgetRaise{ToolCalls: 2}}},
		{name: "a tool's raise", req: BudgetRequest{Raise: &BudgetRaise{ToolCallsPerTool: map[string]int64{"search": 3}}}},
		{name: "both", req: BudgetRequest{Stop: true, Raise: &BudgetRaise{ToolCalls: 1}}, err: `give "raise" or "stop", not both`},
		{name: "neither", req: BudgetRequest{}, err: `give "raise"`},
		{name: "nothing raised", req: BudgetRequest{Raise: &BudgetRaise{}}, err: "raise names no limit"},
		{name: "negative", req: BudgetRequest{Raise: &BudgetRaise{InputTokens: -1}}, err: "raise.input_tokens must be a positive amount, got -1"},
		{name: "a tool's zero", req: BudgetRequest{Raise: &BudgetRaise{ToolCallsPerTool: map[string]int64{"search": 0}}}, err: "raise.tool_calls_per_tool.search must be a positive amount, got 0"},
		{name: "bad wall time", req: BudgetRequest{Raise: &BudgetRaise{WallTime: "soon"}}, err: `raise.wall_time must be a positive duration such as 30m, got "soon"`},
		{name: "huge cost", req: BudgetRequest{Raise: &BudgetRaise{Cost: 1e9}}, err: "raise.cost must be a positive amount of at most 1000000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.req.Validate()
			if c.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, c.err)
		})
	}
}

func TestParseToolCounts(t *testing.T) {
	got, err := ParseToolCounts(" search=5, book = 1 ,")
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"search": 5, "book": 1}, got)
	none, err := ParseToolCounts("  ")
	require.NoError(t, err)
	require.Nil(t, none)
	for _, bad := range []string{"search", "=3", "search=x", "search=1.5"} {
		_, err := ParseToolCounts(bad)
		require.ErrorContains(t, err, "is not tool=count (e.g. search=5)", bad)
	}
}
