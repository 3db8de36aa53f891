package policies

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

func i64(v int64) *int64 { return &v }

func TestLimitsOfABudgetAndItsRaises(t *testing.T) {
	b := &config.Budget{ToolCalls: i64(10), ToolCallsPerTool: map[string]int64{"a": 2}, Cost: &config.CostLimit{Limit: 1.5, Currency: "USD"}, WallTime: config.Duration(time.Hour)}
	l := LimitsOf(b, Limits{ToolCalls: 5, ModelRequests: 9, CostPicos: config.Picos(0.5), WallTime: time.Minute})
	require.Equal(t, int64(15), l.ToolCalls)
	require.Equal(t, map[string]int64{"a": 2}, l.ToolCallsBy)
	require.Equal(t, config.Picos(2), l.CostPicos)
	require.Equal(t, 61*time.Minute, l.WallTime)
	require.Zero(t, l.ModelRequests, "no limit")
	require.Equal(t, Limits{}, LimitsOf(nil, Limits{ModelRequests: 3}), "a raise never creates a limit")
	require.Zero(t, l.ModelRequests, "nor here: the budget has no model_requests")
	require.Equal(t, int64(math.MaxInt64), LimitsOf(&config.Budget{ToolCalls: i64(math.MaxInt64 - 1)}, Limits{ToolCalls: 5}).ToolCalls, "saturates")
	require.Equal(t, int64(math.MaxInt64), config.Picos(math.Inf(1)))
	require.Zero(t, config.Picos(math.NaN()))
	require.Equal(t, Limits{ToolCalls: 7, WallTime: time.Second}, Limits{ToolCalls: 2}.Raise(Limits{ToolCalls: 5, WallTime: time.Second}))
}

func TestBeforeRequest(t *testing.T) {
	price := config.TokenCost{Input: 1_000_000, Output: 2_000_000} // 1 and 2 per million tokens
	ask := RequestAsk{ReplyTokens: 1000, Price: price}
	cases := []struct {
		name    string
		l       Limits
		s       Spend
		elapsed time.Duration
		limit   string
		prompt  int64
	}{
		{name: "no budget", prompt: 0},
		{name: "requests left", l: Limits{ModelRequests: 3}, s: Spend{ModelRequests: 2}},
		{name: "requests spent", l: Limits{ModelRequests: 3}, s: Spend{ModelRequests: 3}, limit: LimitModelRequests},
		{name: "a reply at its bound would cross the output tokens", l: Limits{OutputTokens: 5000}, s: Spend{OutputTokens: 4001}, limit: LimitOutputTokens},
		{name: "a reply at its bound fits the output tokens exactly", l: Limits{OutputTokens: 5000}, s: Spend{OutputTokens: 4000}},
		{name: "input tokens bound the prompt", l: Limits{InputTokens: 5000}, s: Spend{InputTokens: 1200}, prompt: 3800},
		{name: "input tokens spent", l: Limits{InputTokens: 5000}, s: Spend{InputTokens: 5000}, limit: LimitInputTokens},
		{name: "cost bounds the prompt after the reply's bound", l: Limits{CostPicos: config.Picos(0.01)}, prompt: 8000},
		{name: "cost and input tokens: the smaller bound", l: Limits{CostPicos: config.Picos(0.01), InputTokens: 500}, prompt: 500},
		{name: "cost left only for the reply", l: Limits{CostPicos: config.Picos(0.002)}, limit: LimitCost},
		{name: "wall time", l: Limits{WallTime: time.Hour}, elapsed: time.Hour, limit: LimitWallTime},
		{name: "wall time left", l: Limits{WallTime: time.Hour}, elapsed: 59 * time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cross, prompt := BeforeRequest(c.l, c.s, ask, c.elapsed)
			if c.limit == "" {
				require.Nil(t, cross)
				require.Equal(t, c.prompt, prompt)
				return
			}
			require.NotNil(t, cross)
			require.Equal(t, c.limit, cross.Limit)
			require.Contains(t, cross.Why(), "the budget's "+c.limit+" would be crossed")
		})
	}
}

func TestBeforeCall(t *testing.T) {
	l := Limits{ToolCalls: 10, ToolCallsBy: map[string]int64{"pay": 2}, CostPicos: config.Picos(1)}
	s := Spend{ToolCalls: 3, ToolCallsBy: map[string]int64{"pay": 2}, CostPicos: config.Picos(0.95)}
	require.Nil(t, BeforeCall(l, s, "look", 0, 0))
	c := BeforeCall(l, s, "pay", 0, 0)
	require.Equal(t, &Crossing{Limit: LimitToolCalls, Tool: "pay", Spent: 2, Need: 1, Cap: 2}, c)
	require.Contains(t, c.Why(), "tool_calls_per_tool.pay would be crossed: 2 spent, 1 more needed, limit 2")
	c = BeforeCall(l, s, "look", config.Picos(0.1), 0)
	require.Equal(t, LimitCost, c.Limit)
	require.Contains(t, c.Why(), "0.95 spent, 0.1 more needed, limit 1")
	require.Equal(t, LimitToolCalls, BeforeCall(l, Spend{ToolCalls: 10}, "look", 0, 0).Limit)
	require.Equal(t, LimitWallTime, BeforeCall(Limits{WallTime: time.Minute}, Spend{}, "look", 0, 2*time.Minute).Limit)
}

func TestSpendAddsUp(t *testing.T) {
	var s Spend
	price := config.TokenCost{Input: 150_000, Output: 600_000}
	s.AddReply(Reply{InputTokens: 1000, OutputTokens: 100, Price: price})
	s.AddReply(Reply{InputTokens: 10, OutputTokens: 5, Estimated: true, Price: price})
	s.AddCall("pay", config.Picos(0.01))
	s.AddCall("pay", config.Picos(0.01))
	require.Equal(t, Spend{InputTokens: 1010, OutputTokens: 105, ModelRequests: 2, ToolCalls: 2, ToolCallsBy: map[string]int64{"pay": 2},
		CostPicos: 1010*150_000 + 105*600_000 + 2*config.Picos(0.01), Estimated: 1}, s)
	var sum Spend
	sum.Add(s)
	sum.Add(Spend{ToolCalls: -5, CostPicos: -1}) // a forged node adds nothing
	require.Equal(t, s, sum)
}
