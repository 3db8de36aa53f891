package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseRate(t *testing.T) {
	for in, want := range map[string]float64{
		"50/s": 50, "0.5/s": 0.5, "120/m": 2, "1.5/m": 0.025, "3600/h": 1, "1/h": 1.0 / 3600,
	} {
		got, err := ParseRate(in)
		require.NoError(t, err, in)
		require.InDelta(t, want, got, 1e-12, in)
	}
	for _, in := range []string{"", "50", "50/d", "50 /s", "-1/s", "0/s", "0.0/m", "1e3/s", ".5/s", "50/sec", "inf/s", "five/s"} {
		_, err := ParseRate(in)
		require.Error(t, err, in)
	}
}

func TestToolLimits(t *testing.T) {
	f, err := parse(withTool(
		"  - name: a",
		"    http: {url: http://t/a}",
		"    max_concurrent: 20",
		"    rate: 0.5/s"))
	require.NoError(t, err)
	a, _ := f.Tool("a")
	require.Equal(t, 20, a.MaxConcurrent)
	require.Equal(t, "0.5/s", a.Rate)
	require.True(t, a.Limited())
	other, _ := f.Tool("other")
	require.False(t, other.Limited(), "a tool without limits keeps the run's task queue")
	require.Equal(t, "q/tool/a", ToolTaskQueue("q", "a"))

	// The run keeps the limits (the workflow routes by them), not the URL.
	f.Agents[0].Tools = []string{"a"}
	r, err := f.Resolve("x", nil)
	require.NoError(t, err)
	kept, _ := r.WithoutEndpoints().Tool("a")
	require.Equal(t, 20, kept.MaxConcurrent)
	require.Equal(t, "0.5/s", kept.Rate)
	require.Empty(t, kept.HTTP.URL)
}

func TestToolLimitsRefused(t *testing.T) {
	runProblems(t, []problemCase{
		{"max_concurrent 0", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    max_concurrent: 0"), 5, "tools[0].max_concurrent", "must be at least 1, got 0"},
		{"max_concurrent negative", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    max_concurrent: -3"), 5, "tools[0].max_concurrent", "must be at least 1, got -3"},
		{"max_concurrent not a number", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    max_concurrent: lots"), 5, "tools[0].max_concurrent", "cannot unmarshal !!str `lots` into int"},
		{"rate without a unit", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    rate: 50"), 5, "tools[0].rate", `invalid rate "50": want a count per second, minute or hour`},
		{"rate per day", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    rate: 50/d"), 5, "tools[0].rate", `invalid rate "50/d"`},
		{"rate zero", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    rate: 0/s"), 5, "tools[0].rate", "the count must be above 0"},
		{"rate empty", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			`    rate: ""`), 5, "tools[0].rate", `invalid rate ""`},
		{"rate on the second tool", withTool(
			"  - {name: a, http: {url: http://t/a}}",
			"  - {name: b, http: {url: http://t/b}, rate: fast}"), 4, "tools[1].rate", `invalid rate "fast"`},
	})
}
