package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// eval run refuses its flags before reading the suite (the directory here
// does not exist) or dialing.
func TestEvalRunUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--report", "eval.pdf"}, `--report: report eval.pdf: the extension says the format, .md (Markdown) or .html, not ".pdf"`},
		{[]string{"--report", "eval"}, `not ""`},
		{[]string{"--threshold", "2"}, "--threshold is a share of the cases"},
	} {
		args := append([]string{"eval", "run", "no-such-dir", "--config", "candidate.yaml"}, tc.args...)
		r := runCLI(t, noDial(t), args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want, tc.args)
	}
}

// A judge the candidate config cannot run is refused before dialing,
// naming the case file and expect.judge.
func TestEvalRunRefusesAJudgeItCannotRun(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "candidate.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(`
model: { base_url: "http://127.0.0.1:1/v1", name: m }
tools:
  - { name: search, http: { url: "http://127.0.0.1:1/search" }, parameters: { type: object } }
agents:
  - { name: finder, instructions: Find things., tools: [search] }
  - { name: grader, instructions: Judge answers. }
  - { name: searching-grader, instructions: Judge answers., tools: [search] }
  - { name: passing-grader, instructions: Judge answers., handoffs: [grader] }
  - { name: chatting-grader, instructions: Judge answers., conversation: { idle_timeout: 1h } }
`), 0o644))
	for _, tc := range []struct{ judge, want string }{
		{"nobody", `expect.judge: "nobody" is not an agent of ` + cfg},
		{"searching-grader", "expect.judge: agent searching-grader has tools (search) in " + cfg},
		{"passing-grader", "expect.judge: agent passing-grader can hand off (a person, or handoffs) in " + cfg},
		{"chatting-grader", "expect.judge: agent chatting-grader keeps a conversation in " + cfg},
	} {
		cases := filepath.Join(dir, tc.judge)
		require.NoError(t, os.Mkdir(cases, 0o755))
		file := filepath.Join(cases, "c.yaml")
		require.NoError(t, os.WriteFile(file, []byte("agent: finder\ntask: Find a hotel.\nexpect: {match: judge, judge: "+tc.judge+"}\ntools: []\n"), 0o644))
		r := runCLI(t, noDial(t), "eval", "run", cases, "--config", cfg)
		require.Equal(t, exitNotRun, r.code, "%s: %s", tc.judge, r.stderr)
		require.Contains(t, r.stderr, file+": "+tc.want, tc.judge)
	}
}
