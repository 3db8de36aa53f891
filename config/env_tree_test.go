package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A variable's value is expanded after YAML has parsed the file, so YAML
// syntax in it stays text of its one string: it cannot add a key, a tool
// or an agent, wherever the reference is written.
func TestEnvValueCannotChangeStructure(t *testing.T) {
	values := map[string]string{
		"newline and item":  "m\n  - name: evil\n    instructions: pwned",
		"key":               "m\nagents: [{name: evil}]",
		"colon space":       "a: b",
		"flow mapping":      "{name: evil}",
		"closing brace":     "m}, {name: evil",
		"sequence item":     "- name: evil",
		"quote and comment": "m\" # evil",
		"anchor and alias":  "&a *b",
	}
	for name, v := range values {
		t.Run(name, func(t *testing.T) {
			opts := testOpts()
			opts.Getenv = env("V", v)
			f, err := Parse("agents.yaml", []byte(y(
				"model: {base_url: http://m/v1, name: ${V}}",
				"tools:",
				"  - {name: a, description: ${V}, http: {url: http://t/a}}",
				"agents:",
				"  - name: x",
				"    tools: [a]",
				"    capabilities: [${V}]",
				"    instructions: \"${V}\"",
				"    description: ${V}")), opts)
			require.NoError(t, err)
			require.Len(t, f.Tools, 1)
			require.Len(t, f.Agents, 1)
			require.Equal(t, v, f.Model.Name)
			require.Equal(t, v, f.Tools[0].Description)
			require.Equal(t, []string{v}, f.Agents[0].Capabilities)
			require.Equal(t, v, f.Agents[0].Instructions)
			require.Equal(t, v, f.Agents[0].Description)
		})
	}
}

// A plain value that was only a reference decodes by what it expands to,
// so numbers, durations and booleans can come from the environment; a
// quoted one stays a string.
func TestEnvValueTypesAfterExpansion(t *testing.T) {
	opts := testOpts()
	opts.Getenv = env("N", "4", "T", "2m", "B", "1.5", "YES", "true", "EMPTY", "")
	f, err := Parse("agents.yaml", []byte(y(
		"model: {base_url: http://m/v1, name: \"${N}\"}",
		"tools:",
		"  - name: a",
		"    http: {url: http://t/a, timeout: ${T}}",
		"    retry: {max_attempts: ${N}, backoff: ${B}, initial_interval: 1s, max_interval: ${T}}",
		"agents:",
		"  - name: x",
		"    tools: [a]",
		"    graph:",
		"      start: A",
		"      nodes:",
		"        A: {tool: a, args: {n: ${N}, s: \"${N}\", e: ${EMPTY}}}",
		"        E: {end: ${YES}}",
		"      edges: [{from: A, to: E}]",
		"    policies: {human_timeout: ${T:-10s}, breaker: {cooldown: ${MISSING:-45s}}}")), opts)
	require.NoError(t, err)
	require.Equal(t, "4", f.Model.Name)
	require.Equal(t, 2*time.Minute, f.Tools[0].HTTP.Timeout.D())
	require.Equal(t, 4, f.Tools[0].Retry.MaxAttempts)
	require.Equal(t, 1.5, f.Tools[0].Retry.Backoff)
	require.Equal(t, map[string]any{"n": 4, "s": "4", "e": nil}, f.Agents[0].Graph.Nodes["A"].Args)
	require.True(t, f.Agents[0].Graph.Nodes["E"].End)
	require.Equal(t, 2*time.Minute, f.Agents[0].Policies.HumanTimeout.D())
	require.Equal(t, 45*time.Second, f.Agents[0].Policies.Breaker.Cooldown.D())
}

// A plain value that expands to a number where a string belongs is still
// that string, and a quoted number is no int.
func TestEnvValueTypeMismatch(t *testing.T) {
	opts := testOpts()
	opts.Getenv = env("N", "4")
	_, err := Parse("agents.yaml", []byte(withTool(
		"  - {name: t, http: {url: http://t/t}, retry: {max_attempts: \"${N}\"}}")), opts)
	requireProblem(t, err, 3, "tools[0].retry.max_attempts", "cannot unmarshal !!str `4` into int")
}

// Keys are not expanded: a reference there is the key's text, and an
// unset one is no error of its own.
func TestEnvKeysAreNotExpanded(t *testing.T) {
	opts := testOpts()
	opts.Getenv = env("K", "max_steps")
	_, err := Parse("agents.yaml", []byte(withAgent(
		"  - name: x",
		"    ${K}: 1")), opts)
	require.Len(t, Problems(err), 1, "%v", err)
	requireProblem(t, err, 7, "agents[0][\"${K}\"]", `unknown field "${K}"`)

	f, err := Parse("agents.yaml", []byte(withTool(
		"  - name: t",
		"    http: {url: http://t/t}",
		"    parameters:",
		"      type: object",
		"      properties: {${K}: {type: string}}",
		"      required:",
		"        - $${L}")), opts)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"${K}": map[string]any{"type": "string"}}, f.Tools[0].Parameters["properties"])
	require.Equal(t, []any{"${L}"}, f.Tools[0].Parameters["required"], "a value's escape is still a literal ${")
}

// An unset variable in a literal block is reported on its own line.
func TestEnvUnsetInLiteralBlock(t *testing.T) {
	_, err := parse(withAgent(
		"  - name: x",
		"    instructions: |",
		"      Be brief.",
		"",
		"      Sign as ${SIGNATURE}.",
	))
	requireProblem(t, err, 10, "agents[0].instructions", "environment variable SIGNATURE is not set")
}

// A file cannot forge the loader's placeholders: text that looks like
// one stays as written.
func TestEnvPlaceholdersCannotBeForged(t *testing.T) {
	opts := testOpts()
	opts.Getenv = env("V", "v")
	f, err := Parse("agents.yaml", []byte(withAgent(
		"  - name: x",
		"    instructions: ${V} __unstuck_env0_0__",
		"    description: __unstuck_env1_0__")), opts)
	require.NoError(t, err)
	require.Equal(t, "v __unstuck_env0_0__", f.Agents[0].Instructions)
	require.Equal(t, "__unstuck_env1_0__", f.Agents[0].Description)
}
