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
		{"a built-in marked local", Tool{Builtin: "noop", Effect: EffectRead, Local: &yes}, true},
		{"a built-in whose local was not filled", Tool{Builtin: "noop", Effect: EffectRead}, false},
		{"a built-in that writes", Tool{Builtin: "book", Effect: EffectWrite, Local: &yes}, false},
		{"a built-in marked local: false", Tool{Builtin: "noop", Effect: EffectRead, Local: &no}, false},
		{"an HTTP tool", Tool{HTTP: &HTTPTool{}, Effect: EffectRead}, false},
		{"an HTTP tool marked local", Tool{HTTP: &HTTPTool{}, Effect: EffectRead, Local: &yes}, true},
		{"an MCP tool whose server says it writes", Tool{MCP: &MCPTool{}, Effect: EffectWrite, Local: &yes}, false},
		{"a limited built-in", Tool{Builtin: "noop", Effect: EffectRead, MaxConcurrent: 2, Local: &yes}, false},
	}
	for _, c := range cases {
		require.Equal(t, c.want, c.tool.RunsLocal(), c.name)
	}
	require.Equal(t, 2*time.Second, Tool{HTTP: &HTTPTool{Timeout: Duration(2 * time.Second)}, Local: &yes}.LocalTimeout())
	require.Equal(t, LocalToolBound.D(), Tool{Builtin: "noop"}.LocalTimeout())
}

func TestBuiltinsThatReadAndRunFastAreLocal(t *testing.T) {
	data := y(
		"model: {base_url: http://m/v1, name: m}",
		"tools:",
		"  - {name: fast, builtin: noop}",
		"  - {name: slow, builtin: sleep}",
		"  - {name: writes, builtin: noop, effect: write}",
		"  - {name: kept, builtin: noop, local: false}",
		"agents:",
		"  - {name: x, tools: [fast, slow, writes, kept]}")
	f, err := Parse("a.yaml", []byte(data), Options{KnownBuiltin: func(string) bool { return true }, SlowBuiltin: func(n string) bool { return n == "sleep" }})
	require.NoError(t, err)
	got := map[string]bool{}
	for _, tool := range f.Tools {
		got[tool.Name] = tool.RunsLocal()
	}
	require.Equal(t, map[string]bool{"fast": true, "slow": false, "writes": false, "kept": false}, got)
	writes, _ := f.Tool("writes")
	require.Nil(t, writes.Local, "nothing filled for a tool that may not be local")
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
