package config

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse: Parse never panics, and answers a File or *Error problems.
func FuzzParse(f *testing.F) {
	example, err := os.ReadFile("testdata/contract.yaml")
	require.NoError(f, err)
	f.Add(example)
	f.Add([]byte(withGraph("      start: A", "      nodes: {A: {tool: a, args: {q: \"†input.q\"}}, E: {end: true}}", "      edges: [{from: A, to: E, when: ok}]")))
	f.Add([]byte("model: {base_url: ${X:-http://m/v1}, name: m}\nagents: [{name: x}]\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("tools: [{name: a, parameters: {$ref: '#/a'}}]\n"))
	f.Add([]byte("- a\n- b\n"))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := testOpts()
		opts.Getenv = env("X", "1")
		f, err := Parse("fuzz.yaml", data, opts)
		if err != nil {
			require.Nil(t, f)
			require.NotEmpty(t, Problems(err), "%v", err)
			return
		}
		require.NotNil(t, f)
	})
}
