package config

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLoadContractExample(t *testing.T) {
	f, err := Load("testdata/contract.yaml", testOpts())
	require.NoError(t, err)
	require.Len(t, f.Tools, 5)
	require.Len(t, f.Agents, 2)

	book := f.Tools[0]
	require.Equal(t, "book_flight", book.Name)
	require.Equal(t, EffectWrite, book.Effect)
	require.Equal(t, &HTTPTool{Method: "POST", URL: "http://127.0.0.1:9000/book_flight", Timeout: Duration(10 * time.Second)}, book.HTTP)
	require.Equal(t, &Retry{InitialInterval: Duration(time.Second), Backoff: 2, MaxInterval: Duration(30 * time.Second), MaxAttempts: 5}, book.Retry)
	require.Equal(t, []ErrorRule{{Status: 429, Class: ClassTransient}, {Message: "(?i)invalid date", Class: ClassInvalidArgs}}, book.Errors)
	require.Equal(t, "object", book.Parameters["type"])

	travel := f.Agents[0]
	require.Equal(t, []string{"refunds", "human"}, travel.Handoffs)
	require.Equal(t, 100, travel.MaxConcurrent)
	require.Equal(t, "A", travel.Graph.Start)
	require.Len(t, travel.Graph.Nodes, 5)
	require.Equal(t, "†input.q", travel.Graph.Nodes["A"].Args["q"])
	require.Equal(t, "state.done == true", travel.Graph.Edges[4].When)
	require.Equal(t, Duration(24*time.Hour), travel.Policies.HumanTimeout)
	require.Equal(t, &HandoffWhen{ToolFailures: 3, StepsWithoutProgress: 5, UserAsks: "(?i)(talk|speak) to (a )?(person|human)"}, travel.Policies.HandoffWhen)
	require.Equal(t, KindHuman, f.Agents[1].Kind)
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"), testOpts())
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.Contains(t, err.Error(), "nope.yaml")
}

func TestLoadNamesFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "agents.yaml")
	require.NoError(t, os.WriteFile(p, []byte("model: {name: m}\nagents: [{name: x}]\n"), 0o600))
	_, err := Load(p, testOpts())
	require.EqualError(t, err, p+":1: model.base_url: missing: the chat-completions endpoint, e.g. http://127.0.0.1:8080/v1 (required unless every llm agent sets model.base_url)")
}

func TestParseDecodeErrors(t *testing.T) {
	runProblems(t, []problemCase{
		{"unknown top-level field", y(
			"model: {base_url: http://m/v1, name: m}",
			"agent: []"), 2, "agent", `unknown field "agent"`},
		{"unknown tool field", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    retries: 3"), 5, "tools[0].retries", `unknown field "retries"`},
		{"unknown field in a flow mapping", withTool(
			"  - name: a",
			"    http: {url: http://t/a, timout: 5s}"), 4, "tools[0].http.timout", `unknown field "timout"`},
		{"unknown policy field", withAgent(
			"  - name: x",
			"    policies:",
			"      loop: {window: 10, repeat: 2}"), 8, "agents[0].policies.loop.repeat", `unknown field "repeat"`},
		{"unknown graph node field", withGraph(
			"      start: E",
			"      nodes:",
			"        E: {end: true, ouput: x}"), 11, "agents[0].graph.nodes.E.ouput", `unknown field "ouput"`},
		{"bad duration", withTool(
			"  - name: a",
			"    http: {url: http://t/a, timeout: 10x}"), 4, "tools[0].http.timeout", `invalid duration "10x"`},
		{"duration as a number", withAgent(
			"  - name: x",
			"    policies:",
			"      human_timeout: 30"), 8, "agents[0].policies.human_timeout", `invalid duration "30"`},
		{"duration as a mapping", withAgent(
			"  - name: x",
			"    policies:",
			"      breaker:",
			"        cooldown: {s: 1}"), 9, "agents[0].policies.breaker.cooldown", `invalid duration`},
		{"duration as a block mapping", withAgent(
			"  - name: x",
			"    policies:",
			"      breaker:",
			"        cooldown:",
			"          s: 1"), 10, "agents[0].policies.breaker.cooldown", `invalid duration: got !!map`},
		{"mapping for a string", withTool(
			"  - name: {first: a}",
			"    http: {url: http://t/a}"), 3, "tools[0].name", "cannot unmarshal !!map into string"},
		{"wrong type", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    retry: {max_attempts: many}"), 5, "tools[0].retry.max_attempts", "cannot unmarshal !!str `many` into int"},
		{"duplicate key", withTool(
			"  - name: a",
			"    name: b",
			"    http: {url: http://t/a}"), 4, "tools[0].name", `mapping key "name" already defined at line 3`},
	})
}

// TestParseAllDecodeErrors checks that decode problems are all reported
// together, as validation problems are.
func TestParseAllDecodeErrors(t *testing.T) {
	_, err := parse(withTool(
		"  - name: a",
		"    http: {url: http://t/a, timeout: soon}",
		"    colour: red",
		"    retry: {initial_interval: later}"))
	ps := Problems(err)
	require.Len(t, ps, 3, "%v", err)
	require.Equal(t, 4, ps[0].Line)
	require.Equal(t, 5, ps[1].Line)
	require.Equal(t, 6, ps[2].Line)
}

func TestParseMalformed(t *testing.T) {
	cases := []struct {
		name, yaml string
		line       int
		reason     string
	}{
		{"bad indentation", y(
			"model:",
			"  base_url: http://m/v1",
			" name: m"), 3, "did not find expected key"},
		{"unclosed flow sequence", y(
			"model: {base_url: http://m/v1, name: m}",
			"agents: [{name: x}",
			"tools: []"), 2, "did not find expected ',' or ']'"},
		{"unclosed quote", y(
			"model: {base_url: http://m/v1, name: m}",
			"agents:",
			"  - name: 'x"), 3, "found unexpected end of stream"},
		{"tab indentation", "model:\n\tname: m\n", 2, "found character that cannot start any token"},
		{"second document", y(
			"agents: [{name: x}]",
			"---",
			"agents: [{name: y}]"), 2, "one YAML document"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(tc.yaml)
			ps := Problems(err)
			require.Len(t, ps, 1, "%v", err)
			require.Equal(t, "agents.yaml", ps[0].File)
			require.Equal(t, tc.line, ps[0].Line, "%v", err)
			require.Contains(t, ps[0].Reason, tc.reason)
			require.Contains(t, err.Error(), "agents.yaml:")
		})
	}
}

func TestParseNotAMapping(t *testing.T) {
	_, err := parse("- a\n- b\n")
	require.ErrorContains(t, err, "agents.yaml:1: cannot unmarshal !!seq into config.File")
}

func TestParseEmpty(t *testing.T) {
	_, err := parse("")
	requireProblem(t, err, 0, "agents", "no agents")
	_, err = parse("# nothing yet\n")
	requireProblem(t, err, 0, "agents", "no agents")
}

// TestParseDatesStayStrings: an unquoted date stays the string the user
// wrote, in schemas and in graph args alike.
func TestParseDatesStayStrings(t *testing.T) {
	f, err := parse(y(
		"model: {base_url: http://m/v1, name: m}",
		"tools:",
		"  - name: a",
		"    http: {url: http://t/a}",
		"    parameters: {type: object, properties: {d: {type: string, enum: [2024-01-15]}}}",
		"agents:",
		"  - name: x",
		"    tools: [a]",
		"    graph:",
		"      start: A",
		"      nodes: {A: {tool: a, args: {d: 2024-01-15}}, E: {end: true}}",
		"      edges: [{from: A, to: E}]"))
	require.NoError(t, err)
	require.Equal(t, "2024-01-15", f.Agents[0].Graph.Nodes["A"].Args["d"])
	props := f.Tools[0].Parameters["properties"].(map[string]any)
	require.Equal(t, []any{"2024-01-15"}, props["d"].(map[string]any)["enum"])
}

func TestDurationYAML(t *testing.T) {
	f, err := parse(withTool(
		"  - name: a",
		"    http: {url: http://t/a, timeout: 1m30s}",
		"    retry: {initial_interval: 250ms, max_interval: 1h}"))
	require.NoError(t, err)
	require.Equal(t, 90*time.Second, f.Tools[0].HTTP.Timeout.D())
	require.Equal(t, 250*time.Millisecond, f.Tools[0].Retry.InitialInterval.D())
	require.Equal(t, time.Hour, f.Tools[0].Retry.MaxInterval.D())

	v, err := Duration(24 * time.Hour).MarshalYAML()
	require.NoError(t, err)
	require.Equal(t, "24h0m0s", v)
}
