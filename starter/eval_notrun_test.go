package main

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/eval"
)

// An eval that could not run exits 2, never 1 (a regression): here
// Temporal is unreachable (nothing listens at the address), and a case
// file is refused; neither prints a scorecard or the usage hint.
func TestEvalRunThatCouldNotRunExits2(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "candidate.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(checkConfig), 0o644))
	cases := filepath.Join(dir, "cases")
	require.NoError(t, os.Mkdir(cases, 0o755))
	file := filepath.Join(cases, "case.yaml")
	require.NoError(t, os.WriteFile(file, []byte("agent: finder\ntask: Find.\n"), 0o644))

	// A port nothing listens on: taken, then freed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	r := runCLI(t, dialTemporal, "eval", "run", cases, "--config", cfg, "--address", addr)
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "unstuck: cannot reach Temporal at "+addr)
	require.NotContains(t, r.stderr, "--help")
	require.Empty(t, r.stdout, "no scorecard")

	require.NoError(t, os.WriteFile(file, []byte("agent: nobody\ntask: Find.\n"), 0o644))
	r = runCLI(t, noDial(t), "eval", "run", cases, "--config", cfg)
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "unstuck: "+file+`: agent: "nobody" is not an agent of `+cfg)
	require.NotContains(t, r.stderr, "--help")
}

// An eval none of whose runs a worker took, or that could start none,
// could not run; one run taken is enough to score it.
func TestUntakenError(t *testing.T) {
	refused := errors.New("frontend gone")
	for _, tc := range []struct {
		name  string
		takes takenRuns
		want  string // "" for nil
	}{
		{"one run of three taken", takenRuns{started: 3, taken: 1}, ""},
		{"every run taken, one not started", takenRuns{started: 2, taken: 2, startErr: refused}, ""},
		{"nothing to run", takenRuns{}, ""},
		{"no run taken", takenRuns{started: 3},
			"eval: no worker took the cases on task queue eval-q: none of its 3 run(s) had its first workflow task completed within --timeout 4s, and nothing is scored"},
		{"no run taken, one not started", takenRuns{started: 1, startErr: refused},
			"eval: no worker took the cases on task queue eval-q: none of its 1 run(s) had its first workflow task completed within --timeout 4s, and nothing is scored"},
		{"no run started", takenRuns{startErr: refused}, "eval: no run could be started, and nothing is scored: frontend gone"},
	} {
		err := untakenError(tc.takes, "eval-q", 4*time.Second)
		if tc.want == "" {
			require.NoError(t, err, tc.name)
			continue
		}
		require.EqualError(t, err, tc.want, tc.name)
		require.Equal(t, exitNotRun, execCode(notRun(err)), tc.name)
	}
}

// execCode is the exit code execute gives err.
func execCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailure
}

// An eval whose agent's model does not answer (nothing listens at its
// endpoint) could not run: one line, exit 2, before any run starts,
// instead of every run waiting the model out and scored as a regression.
// A graph that never asks a model is not held back by it.
func TestEvalRunWithTheModelDownExits2(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "candidate.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(checkConfig), 0o644))
	cases := filepath.Join(dir, "cases")
	require.NoError(t, os.Mkdir(cases, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cases, "case.yaml"), []byte("agent: finder\ntask: Find.\n"), 0o644))
	_, dial := fakeTemporal(t) // nothing is asked of Temporal
	r := runCLI(t, dial, "eval", "run", cases, "--config", cfg)
	require.Equal(t, exitNotRun, r.code, r.stderr)
	require.Equal(t, "unstuck: eval: the model of agent finder (candidate in "+cfg+") does not answer at http://127.0.0.1:9/v1 (connect: connection refused), "+
		"and nothing is scored: start it, or point --config at one that answers\n", r.stderr)
	require.Empty(t, r.stdout, "no scorecard")

	require.NoError(t, checkEvalModels([]*eval.Case{{Agent: "walker"}}, mustConfig(t, `
model: { base_url: "http://127.0.0.1:9/v1", name: unused }
tools:
  - { name: search, effect: read, http: { url: "http://127.0.0.1:9/search" }, parameters: { type: object } }
agents:
  - name: walker
    tools: [search]
    graph: { start: S, nodes: { S: { tool: search, args: {} }, E: { end: true } }, edges: [ { from: S, to: E } ] }
`), "graph.yaml"))
}

// mustConfig is a config file's text, loaded as the worker loads it.
func mustConfig(t *testing.T, text string) *config.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agents.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	cfg, err := app.LoadConfig(path)
	require.NoError(t, err)
	return cfg
}
