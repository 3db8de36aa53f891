package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidateBudget(t *testing.T) {
	// budget is agent x (tools a and b) with a policies.budget mapping at
	// line 9, then the file-level lines given.
	budget := func(mapping string, more ...string) string {
		return withAgent(append([]string{"  - name: x", "    tools: [a, b]", "    policies:", "      budget: " + mapping}, more...)...)
	}
	const prices = "prices: {models: {m: {input: 0.15, output: 0.6}}, tools: {a: 0.01}}"
	runProblems(t, []problemCase{
		{"a zero limit", budget("{model_requests: 0}"), 9, "agents[0].policies.budget.model_requests", "must be > 0 (leave it out for no limit), got 0"},
		{"a negative limit", budget("{input_tokens: -5}"), 9, "agents[0].policies.budget.input_tokens", "must be > 0 (leave it out for no limit), got -5"},
		{"a negative wall time", budget("{wall_time: -1m}"), 9, "agents[0].policies.budget.wall_time", "must be > 0"},
		{"a zero wall time", budget("{wall_time: 0}"), 9, "agents[0].policies.budget.wall_time", "must be > 0 (leave it out for no limit), got 0s"},
		{"a file default of zero wall time", withAgent("  - name: x", "budget: {wall_time: 0s}"), 7, "budget.wall_time", "must be > 0 (leave it out for no limit), got 0s"},
		{"a tool limit of a tool the agent does not call", withAgent("  - name: x", "    tools: [a]", "    policies:", "      budget: {tool_calls_per_tool: {b: 3}}"), 9,
			"agents[0].policies.budget.tool_calls_per_tool.b", `agent "x" does not call tool "b" (its tools: a)`},
		{"a tool limit of an unknown tool", budget("{tool_calls_per_tool: {zz: 3}}"), 9, "agents[0].policies.budget.tool_calls_per_tool.zz", `unknown tool "zz"`},
		{"an unknown currency", budget("{cost: {limit: 5, currency: XYZ}}", prices), 9, "agents[0].policies.budget.cost.currency", `unknown currency "XYZ": give an ISO 4217 code such as USD or EUR`},
		{"a zero cost", budget("{cost: {limit: 0, currency: USD}}", prices), 9, "agents[0].policies.budget.cost.limit", "must be > 0 and at most 1000000, got 0"},
		{"an unknown currency in lower case", budget("{cost: {limit: 5, currency: xyz}}", prices), 9, "agents[0].policies.budget.cost.currency", `unknown currency "xyz"`},
		{"a cost in another currency than the prices, in lower case", budget("{cost: {limit: 5, currency: eur}}", prices), 9, "agents[0].policies.budget.cost.currency", "eur, but prices are in USD (prices.currency)"},
		{"a cost without prices", budget("{cost: {limit: 5, currency: USD}}"), 9, "agents[0].policies.budget.cost", "a cost budget needs prices"},
		{"a cost in another currency than the prices", budget("{cost: {limit: 5, currency: EUR}}", prices), 9, "agents[0].policies.budget.cost.currency", "EUR, but prices are in USD (prices.currency): costs are not converted"},
		{"a model without a price", budget("{cost: {limit: 5, currency: USD}}", "prices: {tools: {a: 0.01}}"), 9, "agents[0].policies.budget.cost",
			`agent "x" may ask model "m", which has no price: add prices.models.m`},
		{"a price without a model", budget("{}", "prices: {models: {gpt-9: {input: 1, output: 2}}}"), 10, "prices.models.gpt-9", `no model of this file is named "gpt-9" (models: m)`},
		{"a price of an unknown tool", budget("{}", "prices: {tools: {zz: 1}}"), 10, "prices.tools.zz", `unknown tool "zz"`},
		{"a negative price", budget("{}", "prices: {tools: {a: -1}}"), 10, "prices.tools.a", "a price per call must be between 0 and 1000000, got -1"},
		{"an unknown prices currency", budget("{}", "prices: {currency: usd1}"), 10, "prices.currency", `unknown currency "usd1"`},
		{"a person's agent", withAgent("  - name: x", "    kind: human", "    policies: {budget: {tool_calls: 3}}"), 8, "agents[0].policies.budget", "applies to llm agents"},
		{"a file default of zero", withAgent("  - name: x", "budget: {tool_calls: 0}"), 7, "budget.tool_calls", "must be > 0"},
		{"a file default cost, an agent's model without a price", withAgent("  - name: x", "budget: {cost: {limit: 1, currency: USD}}", "prices: {tools: {a: 1}}"), 7, "budget.cost",
			`agent "x" may ask model "m", which has no price`},
	})
}

// A currency is an ISO 4217 code in any case: the budget's and the
// prices' are compared, and a run counts in, upper-cased.
func TestCurrencyInAnyCase(t *testing.T) {
	for _, tc := range []struct{ name, cost, prices, counted string }{
		{"lower case, prices by default", "usd", "", "USD"},
		{"lower case both", "usd", "currency: usd, ", "USD"},
		{"mixed case against upper", "Eur", "currency: EUR, ", "EUR"},
		{"upper against lower", "EUR", "currency: eur, ", "EUR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parse(withAgent("  - name: x", "    tools: [a]",
				"budget: {cost: {limit: 1, currency: "+tc.cost+"}}",
				"prices: {"+tc.prices+"models: {m: {input: 1, output: 2}}, tools: {a: 0.01}}"))
			require.NoError(t, err)
			r, err := f.Resolve("x", nil)
			require.NoError(t, err)
			require.Equal(t, tc.counted, r.Pricing.Currency)
		})
	}
}

func TestAWallTimeLeftOutIsNoLimit(t *testing.T) {
	for _, budget := range []string{"{tool_calls: 3}", "{tool_calls: 3, wall_time: null}", "{tool_calls: 3, wall_time: 1h}"} {
		_, err := parse(withAgent("  - name: x", "budget: "+budget))
		require.NoError(t, err, budget)
	}
}

func TestAModelWithoutAPriceIsSaidOnceAtTwoEndpoints(t *testing.T) {
	_, err := parse(withAgent("  - name: x", "    model: {name: m, fallbacks: [{name: m, base_url: http://other/v1}]}",
		"budget: {cost: {limit: 1, currency: USD}}", "prices: {tools: {a: 1}}"))
	var said []string
	for _, p := range Problems(err) {
		said = append(said, p.Path+": "+p.Reason)
	}
	require.Equal(t, []string{`budget.cost: agent "x" may ask model "m", which has no price: add prices.models.m: { input: ..., output: ... } (per million tokens)`}, said)
}

func TestBudgetResolvesWithItsPricesInPicos(t *testing.T) {
	f, err := parse(withAgent("  - name: x", "    tools: [a]", "    model: {name: m, fallbacks: [{name: m2}]}",
		"  - name: y", "    tools: [b]", "    policies: {budget: {model_requests: 7}}",
		"budget: {tool_calls: 50, tool_calls_per_tool: {a: 5}, cost: {limit: 2.5, currency: USD}, wall_time: 1h}",
		"prices: {models: {m: {input: 0.15, output: 0.6}, m2: {input: 2.5, output: 10}}, tools: {a: 0.01}}"))
	require.NoError(t, err)
	x, err := f.Resolve("x", nil)
	require.NoError(t, err)
	b := x.Agent.Policies.Budget
	require.NotNil(t, b, "the file's budget applies to an agent without one")
	require.Equal(t, int64(50), *b.ToolCalls)
	require.Equal(t, &Pricing{Currency: "USD",
		Models: map[string]TokenCost{"m": {Input: 150_000, Output: 600_000}, "m2": {Input: 2_500_000, Output: 10_000_000}},
		Tools:  map[string]int64{"a": 10_000_000_000},
	}, x.Pricing)
	require.Equal(t, int64(2_500_000_000_000), Picos(b.Cost.Limit))
	require.InDelta(t, 2.5, Amount(Picos(2.5)), 1e-12)

	y, err := f.Resolve("y", nil)
	require.NoError(t, err)
	require.Equal(t, int64(7), *y.Agent.Policies.Budget.ModelRequests, "an agent's own budget replaces the file's")
	require.Nil(t, y.Agent.Policies.Budget.ToolCalls)
	require.Equal(t, &Pricing{Currency: "USD", Models: map[string]TokenCost{"m": {Input: 150_000, Output: 600_000}}}, y.Pricing,
		"the file's model has a price, y's tool none")
}
