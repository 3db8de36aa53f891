package repair

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// The corpus says what it claims: every case is a call that fails as
// sent (not a JSON object, or not valid against its tool's schema), a
// mechanical case's wanted arguments are valid, a judgement case has no
// wanted arguments, and the categories are balanced enough to be read
// one by one.
func TestCorpus2WellFormed(t *testing.T) {
	c := loadCorpus2(t)
	require.Len(t, c.tools, 5)
	require.Equal(t, 6, int(c.now.Weekday()), "now is a Saturday, so 'next Friday' has one reading")
	require.GreaterOrEqual(t, len(c.cases), 150)
	require.LessOrEqual(t, len(c.cases), 250)
	perCategory, judgement, perTool := map[string]int{}, map[string]int{}, map[string]int{}
	for i, k := range c.cases {
		name := k.name(i)
		tool, ok := c.tools[k.Tool]
		require.True(t, ok, "%s: no tool %s", name, k.Tool)
		require.Contains(t, corpus2Categories, k.Category, name)
		perCategory[k.Category]++
		perTool[k.Tool]++
		if v, err := decodeJSON([]byte(k.Raw)); err == nil {
			if args, ok := v.(map[string]any); ok {
				_, viol := check(tool.compiled, args)
				require.NotEmpty(t, viol, "%s: the call is valid as sent", name)
			}
		}
		if k.Judgement {
			judgement[k.Category]++
			require.Empty(t, k.Want, "%s: a judgement case has no wanted arguments", name)
			require.NotEmpty(t, k.Note, "%s: a judgement case says why", name)
			continue
		}
		want := wantOf(t, name, k)
		_, viol := check(tool.compiled, want)
		require.Empty(t, viol, "%s: the wanted arguments are not valid", name)
	}
	for _, cat := range corpus2Categories {
		require.GreaterOrEqual(t, perCategory[cat], 15, "%s: too few cases to read", cat)
		require.GreaterOrEqual(t, judgement[cat], 3, "%s: too few judgement cases", cat)
		require.Greater(t, perCategory[cat], 2*judgement[cat], "%s: mostly judgement", cat)
	}
	for name := range c.tools {
		require.GreaterOrEqual(t, perTool[name], 20, "%s: too few cases", name)
	}
	require.True(t, slices.ContainsFunc(c.cases, func(k corpus2Case) bool {
		return k.Category == "lists" && !k.Judgement && k.Raw != "" && k.Want != "" && k.Trap
	}), "the known bug (a comma-separated string for an array) is a case")
}
