package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestWhichToolsRunLocal(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name string
		tool Tool
		want bool
	}{
		{"a built-in that reads", Tool{Builtin: "noop", Effect: EffectRead}, true},
		{"an idempotent built-in", Tool{Builtin: "noop", Effect: EffectIdempotent}, true},
		{"a built-in that writes", Tool{Builtin: "book", Effect: EffectWrite}, false},
		{"a built-in marked local: false", Tool{Builtin: "noop", Effect: EffectRead, Local: &no}, false},
		{"an HTTP tool", Tool{HTTP: &HTTPTool{}, Effect: EffectRead}, false},
		{"an HTTP tool marked local", Tool{HTTP: &HTTPTool{}, Effect: EffectRead, Local: &yes}, true},
		{"an MCP tool whose server says it writes", Tool{MCP: &MCPTool{}, Effect: EffectWrite, Local: &yes}, false},
		{"a limited built-in", Tool{Builtin: "noop", Effect: EffectRead, MaxConcurrent: 2}, false},
	}
	for _, c := range cases {
		require.Equal(t, c.want, c.tool.RunsLocal(), c.name)
	}
	require.Equal(t, 2*time.Second, Tool{HTTP: &HTTPTool{Timeout: Duration(2 * time.Second)}, Local: &yes}.LocalTimeout())
	require.Equal(t, LocalToolBound.D(), Tool{Builtin: "noop"}.LocalTimeout())
}

func TestALocalHTTPToolDefaultsToTheBound(t *testing.T) {
	f, err := parse(withTool(
		"  - name: a",
		"    http: {url: http://t/a}",
		"    local: true"))
	require.NoError(t, err)
	a, _ := f.Tool("a")
	require.Equal(t, LocalToolBound, a.HTTP.Timeout, "not the 30s of a normal HTTP tool")
	require.True(t, a.RunsLocal())
	other, _ := f.Tool("other")
	require.Equal(t, DefaultHTTPTimeout, other.HTTP.Timeout)
}

func TestLocalToolsRefused(t *testing.T) {
	runProblems(t, []problemCase{
		{"a write tool", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    effect: write",
			"    local: true"), 6, "tools[0].local", "a tool with effect: write cannot run as a local activity"},
		{"a limited tool", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    rate: 5/s",
			"    local: true"), 6, "tools[0].local", "waits on its own task queue"},
		{"a timeout over the bound", withTool(
			"  - name: a",
			"    http: {url: http://t/a, timeout: 30s}",
			"    local: true"), 4, "tools[0].http.timeout", "is 30s, over the 10s a local tool's call may take"},
	})
}
