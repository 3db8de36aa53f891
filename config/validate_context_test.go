package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidateContext(t *testing.T) {
	// ctx is agent x with a policies.context mapping at line 8.
	ctx := func(mapping string, more ...string) string {
		return withAgent(append([]string{"  - name: x", "    policies:", "      context: " + mapping}, more...)...)
	}
	ownModel := func(model string) string {
		return withAgent("  - name: x", "    policies:", "      context: {}", "    model: "+model)
	}
	runProblems(t, []problemCase{
		{"compact_at over 1", ctx("{compact_at: 1.5}", "    model: {name: gpt-4o}"), 8, "agents[0].policies.context.compact_at", "must be between 0 and 1 (a share of the model's window, e.g. 0.8), got 1.5"},
		{"compact_at 0", ctx("{compact_at: 0}", "    model: {name: gpt-4o}"), 8, "agents[0].policies.context.compact_at", "must be between 0 and 1"},
		{"keep_last 0", ctx("{keep_last: 0}", "    model: {name: gpt-4o}"), 8, "agents[0].policies.context.keep_last", "must be at least 1 (the steps whose results stay whole), got 0"},
		{"a model of unknown window", ctx("{}"), 1, "model.context_window", `missing for model "m", which policies.context of agent "x" needs: give the model's token window (e.g. 128000)`},
		{"a reply as large as the window", ownModel("{name: m, context_window: 1000, max_output_tokens: 1000}"), 9, "agents[0].model.max_output_tokens", "1000 leaves no room for a prompt in a context_window of 1000 tokens"},
		{"instructions larger than the window", withAgent("  - name: x", "    instructions: "+strings.Repeat("word ", 300),
			"    policies: {context: {}}", "    model: {name: m, context_window: 300, max_output_tokens: 50}"), 9, "agents[0].model.context_window",
			`300 tokens, less a reply's 50, leave no room for agent "x"'s conversation: its instructions and tool definitions alone take 30`},
		{"a person's agent", withAgent("  - name: x", "    kind: human", "    policies: {context: {}}"), 8, "agents[0].policies.context", "applies to llm agents"},
	})
}

func TestContextDefaultsAndWindow(t *testing.T) {
	f, err := parse(withAgent("  - name: x", "    tools: [a]", "    policies: {context: {}}", "    model: {name: gpt-4o-mini}"))
	require.NoError(t, err)
	r, err := f.Resolve("x", nil)
	require.NoError(t, err)
	require.Equal(t, &ContextPolicy{CompactAt: DefaultCompactAt, KeepLast: DefaultKeepLast}, r.Agent.Policies.Context)
	window, output, known := r.Model.Window()
	require.True(t, known)
	require.Equal(t, 128_000, window)
	require.Equal(t, 16_384, output)
	require.Equal(t, 89_292, r.PromptBudget())

	plain, err := parse(withAgent("  - name: y"))
	require.NoError(t, err)
	ry, err := plain.Resolve("y", nil)
	require.NoError(t, err)
	require.Zero(t, ry.PromptBudget(), "no policies.context: no token budget")
}

func TestModelWindowOfAFamilyAndOfTheConfig(t *testing.T) {
	for _, tc := range []struct {
		m              Model
		window, output int
		known          bool
	}{
		{Model{Name: "openai/gpt-4o"}, 128_000, 16_384, true},
		{Model{Name: "gpt-4"}, 8_192, 2_048, true},
		{Model{Name: "llama-3", ContextWindow: 8_000}, 8_000, 2_000, true},
		{Model{Name: "gpt-4o", ContextWindow: 8_000, MaxOutputTokens: 500}, 8_000, 500, true},
		{Model{Name: "local-model"}, 0, 0, false},
	} {
		w, o, k := tc.m.Window()
		require.Equal(t, []any{tc.window, tc.output, tc.known}, []any{w, o, k}, tc.m.Name)
	}
}
