package main

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// replay's command-line mistakes are usage errors (exit 2), found before
// anything is read or dialed.
func TestReplayUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay"}, "replay needs --query QUERY or history files"},
		{[]string{"replay", "--query", "WorkflowType = 'AgentWorkflow'", "runs.json"}, "replay takes --query or files, not both"},
		{[]string{"replay", "--query", "WorkflowType = 'AgentWorkflow'", "--limit", "0"}, "--limit must be at least 1, got 0"},
		{[]string{"replay", filepath.Join(t.TempDir(), "missing.json")}, "missing.json: no such file or directory"},
		{[]string{"replay", t.TempDir()}, "no .json history files in this directory or below"},
	} {
		res := runCLI(t, noDial(t), tc.args...)
		require.Equal(t, exitUsage, res.code, "%v: %s", tc.args, res.stderr)
		require.Contains(t, res.stderr, tc.want, "%v", tc.args)
		require.Empty(t, res.stdout, "%v", tc.args)
	}
}

// A file replays without a server: its ok line and the total.
func TestReplayRecordedHistoryFile(t *testing.T) {
	file := filepath.Join("..", "testsuite", "histories", "v0.1", "v093ddf9_handoff_upgraded_gen1.json")
	res := runCLI(t, noDial(t), "replay", file)
	require.Equal(t, exitOK, res.code, res.stdout+res.stderr)
	require.Regexp(t, `^ok   `+regexp.QuoteMeta(file)+`\n1 run in [0-9.]+s \([0-9.]+ runs/s\): 1 ok, 0 would not replay, 0 bad input\n$`, res.stdout)
}
