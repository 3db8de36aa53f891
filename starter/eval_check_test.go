package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// checkConfig is a candidate config: finder has a read tool only, booker
// a write tool too, noter a tool whose effect is not declared (a POST,
// the default method). Nothing at its addresses is reached.
const checkConfig = `
model: { base_url: "http://127.0.0.1:9/v1", name: candidate }
tools:
  - { name: search, effect: read, http: { url: "http://127.0.0.1:9/search" }, parameters: { type: object } }
  - { name: book, effect: write, http: { url: "http://127.0.0.1:9/book" }, parameters: { type: object } }
  - { name: note, http: { url: "http://127.0.0.1:9/note" }, parameters: { type: object } }
agents:
  - { name: finder, instructions: Find things., tools: [search] }
  - { name: booker, instructions: Book things., tools: [search, book] }
  - { name: noter, instructions: Take notes., tools: [search, note] }
`

// checkSecret is a tool's answer that is also the value of a secret
// environment variable.
const checkSecret = "ref-7f3a9c2e51d4"

// eval run refuses a case it cannot run, naming the case file and the
// field, with exit status 2 (it could not run), before it dials Temporal:
// so no run starts.
func TestEvalRunRefusesCases(t *testing.T) {
	t.Setenv("HOTELS_API_KEY", checkSecret)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "candidate.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(checkConfig), 0o644))
	for _, tc := range []struct {
		name, text string
		args       []string
		want       string // in stderr, after the case file's path
	}{
		{"an unknown field", "agent: finder\ntask: Find.\ntols: []\n", nil,
			": yaml: unmarshal errors:\n  line 3: field tols not found in type eval.Case"},
		{"bad YAML", "agent: [finder\ntask: Find.\n", nil, ": yaml: line "},
		{"no task", "agent: finder\n", nil, ": task: missing"},
		{"an unknown agent", "agent: nobody\ntask: Find.\n", nil,
			`: agent: "nobody" is not an agent of ` + cfg},
		{"a recorded tool the agent lacks", "agent: finder\ntask: Find.\ntools:\n  - { tool: search, args: {} }\n  - { tool: book, args: { id: 1 } }\n", nil,
			": tools[1].tool: book is not a tool of agent finder in " + cfg},
		{"messages for an agent without conversation", "agent: finder\ntask: Find.\nmessages:\n  - { text: more please }\n", nil,
			": messages: agent finder keeps no conversation in " + cfg + ": its run ends at its first output, so the case's 1 later message(s) would not be sent"},
		{"a secret", "agent: finder\ntask: Find.\ntools:\n  - { tool: search, args: { q: nyc }, result: { ref: " + checkSecret + " } }\n", nil,
			": tools[0].result.ref holds the value of a secret environment variable; a case file never holds a secret"},
		{"--unrecorded live with a write tool", "agent: booker\ntask: Book.\n", []string{"--unrecorded", "live"},
			": agent booker has the write tool book (" + cfg + "): --unrecorded live calls tools for real"},
		{"--unrecorded live with a tool of undeclared effect", "agent: noter\ntask: Note.\n", []string{"--unrecorded", "live"},
			": agent noter has the tool note, whose effect " + cfg + " does not declare: --unrecorded live calls for real only tools declared effect: read; " +
				"declare note's effect (effect: read if it only reads) or use --unrecorded error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cases := t.TempDir()
			path := filepath.Join(cases, "case.yaml")
			require.NoError(t, os.WriteFile(path, []byte(tc.text), 0o644))
			r := runCLI(t, noDial(t), append([]string{"eval", "run", cases, "--config", cfg}, tc.args...)...)
			require.Equal(t, exitNotRun, r.code, r.stderr)
			require.Contains(t, r.stderr, "unstuck: "+path+tc.want)
		})
	}

	// The write tool is refused for live calls only: with the default
	// --unrecorded error the same case passes the checks and the eval
	// dials the server.
	cases := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(cases, "case.yaml"), []byte("agent: booker\ntask: Book.\n"), 0o644))
	dialed := func(context.Context, client.Options) (client.Client, error) {
		return nil, errors.New("no server in this test")
	}
	r := runCLI(t, dialed, "eval", "run", cases, "--config", cfg)
	require.Equal(t, exitNotRun, r.code, r.stderr)
	require.Contains(t, r.stderr, "no server in this test")
}
