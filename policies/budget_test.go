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

func TestReplyRoom(t *testing.T) {
	price := config.TokenCost{Input: 1_000_000, Output: 2_000_000} // 1 and 2 per million tokens
	ask := RequestAsk{ReplyTokens: 4000, Price: price}
	cases := []struct {
		name  string
		l     Limits
		s     Spend
		reply int64
	}{
		{name: "no budget: the model's bound", reply: 4000},
		{name: "output tokens to spare: the model's bound", l: Limits{OutputTokens: 10_000}, s: Spend{OutputTokens: 5000}, reply: 4000},
		{name: "less output left: what is left", l: Limits{OutputTokens: 10_000}, s: Spend{OutputTokens: 9000}, reply: 1000},
		{name: "too little output left: the least reply, which crosses", l: Limits{OutputTokens: 10_000}, s: Spend{OutputTokens: 9900}, reply: MinReplyTokens},
		{name: "cost: half of what is left", l: Limits{CostPicos: config.Picos(0.004)}, reply: 1000},
		{name: "cost to spare: the model's bound", l: Limits{CostPicos: config.Picos(1)}, reply: 4000},
		{name: "cost nearly spent: the least reply", l: Limits{CostPicos: config.Picos(0.004)}, s: Spend{CostPicos: config.Picos(0.0035)}, reply: MinReplyTokens},
		{name: "the smaller of the two", l: Limits{OutputTokens: 10_000, CostPicos: config.Picos(0.004)}, s: Spend{OutputTokens: 9200}, reply: 800},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.reply, ReplyRoom(c.l, c.s, ask))
		})
	}
	small := RequestAsk{ReplyTokens: 100, Price: price}
	require.Equal(t, int64(100), ReplyRoom(Limits{OutputTokens: 150}, Spend{}, small), "a model bound under the minimum is the bound")
	require.Equal(t, int64(100), ReplyRoom(Limits{OutputTokens: 150}, Spend{OutputTokens: 100}, small), "less left than a small bound: the bound, which crosses")
	cross, _ := BeforeRequest(Limits{OutputTokens: 10_000}, Spend{OutputTokens: 9900}, RequestAsk{ReplyTokens: MinReplyTokens, Price: price}, 0)
	require.NotNil(t, cross)
	require.Equal(t, "the budget's output_tokens would be crossed: 9900 spent, 256 more needed, limit 10000", cross.Why())
}

func TestARaiseMustRaiseTheCrossedLimit(t *testing.T) {
	cases := []struct {
		cross Crossing
		by    Limits
		ok    bool
	}{
		{Crossing{Limit: LimitCost}, Limits{CostPicos: 1}, true},
		{Crossing{Limit: LimitCost}, Limits{ToolCalls: 5}, false},
		{Crossing{Limit: LimitToolCalls}, Limits{ToolCalls: 5}, true},
		{Crossing{Limit: LimitToolCalls, Tool: "search"}, Limits{ToolCalls: 5}, false},
		{Crossing{Limit: LimitToolCalls, Tool: "search"}, Limits{ToolCallsBy: map[string]int64{"search": 2}}, true},
		{Crossing{Limit: LimitToolCalls, Tool: "search"}, Limits{ToolCallsBy: map[string]int64{"book": 2}}, false},
		{Crossing{Limit: LimitWallTime}, Limits{WallTime: time.Minute}, true},
		{Crossing{Limit: LimitInputTokens}, Limits{OutputTokens: 9}, false},
		{Crossing{Limit: LimitOutputTokens}, Limits{OutputTokens: 9}, true},
		{Crossing{Limit: LimitModelRequests}, Limits{ModelRequests: 1}, true},
	}
	for _, c := range cases {
		require.Equal(t, c.ok, c.cross.Raises(c.by), "%+v raised by %+v", c.cross, c.by)
	}
}

func TestARaiseOfOneToolAddsToItsLimit(t *testing.T) {
	before := Limits{ToolCallsBy: map[string]int64{"search": 2}}
	after := before.Raise(Limits{ToolCallsBy: map[string]int64{"search": 3, "book": 1}})
	require.Equal(t, map[string]int64{"search": 5, "book": 1}, after.ToolCallsBy)
	require.Equal(t, map[string]int64{"search": 2}, before.ToolCallsBy, "the limits raised before are not changed in place")
	b := &config.Budget{ToolCallsPerTool: map[string]int64{"search": 4}}
	require.Equal(t, map[string]int64{"search": 9}, LimitsOf(b, after).ToolCallsBy, "only the budget's tools count")
}
