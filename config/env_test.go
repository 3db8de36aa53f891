package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestExpandEnv(t *testing.T) {
	getenv := env("HOST", "127.0.0.1", "EMPTY", "", "N", "7")
	cases := []struct{ in, want string }{
		{"http://${HOST}:8080/v1", "http://127.0.0.1:8080/v1"},
		{"${HOST}${HOST}", "127.0.0.1127.0.0.1"},
		{"${MISSING:-fallback}", "fallback"},
		{"${HOST:-fallback}", "127.0.0.1"},
		{"${EMPTY:-fallback}", "fallback"},
		{"${EMPTY}", ""},
		{"${MISSING:-}", ""},
		{"${MISSING:-http://x:1/v1}", "http://x:1/v1"},
		{"$${HOST}", "${HOST}"},
		{"$HOST and ${not a ref} and ${1X}", "$HOST and ${not a ref} and ${1X}"},
		{"${N}", "7"},
	}
	for _, tc := range cases {
		out, unset := ExpandEnv(tc.in, getenv)
		require.Equal(t, tc.want, out, tc.in)
		require.Empty(t, unset, tc.in)
	}
}

// An unset variable without default expands to nothing and is named,
// once per reference.
func TestExpandEnvUnset(t *testing.T) {
	out, unset := ExpandEnv("Bearer ${TOKEN} ${B:-b} ${TOKEN}", env())
	require.Equal(t, "Bearer  b ", out)
	require.Equal(t, []string{"TOKEN", "TOKEN"}, unset)
}

func TestEnvInConfig(t *testing.T) {
	opts := testOpts()
	opts.Getenv = env("BASE", "http://llm:8080/v1", "TOOLS", "http://tools:9000", "STEPS", "50", "WAIT", "5s")
	f, err := Parse("agents.yaml", []byte(y(
		"model:",
		"  base_url: ${BASE}",
		"  name: ${MODEL:-gpt-4o-mini}",
		"tools:",
		"  - {name: a, http: {url: ${TOOLS}/a, timeout: ${WAIT}}}",
		"agents:",
		"  - name: x",
		"    instructions: \"Say $${literally}.\"",
		"    policies: {max_steps: ${STEPS}}")), opts)
	require.NoError(t, err)
	require.Equal(t, "http://llm:8080/v1", f.Model.BaseURL)
	require.Equal(t, "gpt-4o-mini", f.Model.Name)
	require.Equal(t, "http://tools:9000/a", f.Tools[0].HTTP.URL)
	require.Equal(t, 5*time.Second, f.Tools[0].HTTP.Timeout.D())
	require.Equal(t, 50, f.Agents[0].Policies.MaxSteps)
	require.Equal(t, "Say ${literally}.", f.Agents[0].Instructions)
}

func TestEnvUnset(t *testing.T) {
	_, err := parse(y(
		"model:",
		"  base_url: http://m/v1",
		"  name: ${MODEL_NAME}",
		"agents: [{name: x}]"))
	require.EqualError(t, err, "agents.yaml:3: model.name: environment variable MODEL_NAME is not set (write ${MODEL_NAME:-default} to give a default)")
}

func TestEnvUnsetEverywhere(t *testing.T) {
	// In a flow mapping, a flow sequence, a quoted string: all reported,
	// once each. (Keys are not expanded: TestEnvKeysAreNotExpanded.)
	_, err := parse(y(
		"model: {base_url: \"${A}/v1\", name: m}",
		"tools:",
		"  - {name: t, http: {url: ${B}}}",
		"agents:",
		"  - name: x",
		"    capabilities: [${C}]",
		"    instructions: ${A}"))
	ps := Problems(err)
	require.Len(t, ps, 4, "%v", err)
	require.Equal(t, []int{1, 3, 6, 7}, []int{ps[0].Line, ps[1].Line, ps[2].Line, ps[3].Line})
	require.Contains(t, ps[0].Reason, "variable A is not set")
	require.Equal(t, "model.base_url", ps[0].Path)
	require.Contains(t, ps[1].Reason, "variable B is not set")
	require.Equal(t, "tools[0].http.url", ps[1].Path)
	require.Contains(t, ps[2].Reason, "variable C is not set")
	require.Contains(t, ps[3].Reason, "variable A is not set")
}

// TestEnvInComments: a reference in a comment is not expanded into
// anything YAML keeps, so an unset one is no error. docs/contract.md's own
// example has "${ENV}" in a comment.
func TestEnvInComments(t *testing.T) {
	f, err := parse(y(
		"# uses ${UNSET_ONE}",
		"model:",
		"  base_url: http://m/v1   # \"${ENV}\" expansion is allowed anywhere",
		"  name: m",
		"agents: [{name: x}]  # ${UNSET_TWO}"))
	require.NoError(t, err)
	require.Equal(t, "http://m/v1", f.Model.BaseURL)
}

func TestEnvDefaultsToOSLookup(t *testing.T) {
	t.Setenv("UNSTUCK_TEST_MODEL", "from-os")
	f, err := Parse("agents.yaml", []byte(y(
		"model: {base_url: http://m/v1, name: \"${UNSTUCK_TEST_MODEL}\"}",
		"agents: [{name: x}]")), Options{})
	require.NoError(t, err)
	require.Equal(t, "from-os", f.Model.Name)
}
