package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// result is what one invocation of the CLI produced.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI executes the real command tree with args, as main would.
func runCLI(t *testing.T, dial dialFunc, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := execute(context.Background(), args, &out, &errOut, dial)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// noDial fails the test if a command reaches for the server: flag
// mistakes must be caught before dialing.
func noDial(t *testing.T) dialFunc {
	return func(context.Context, client.Options) (client.Client, error) {
		t.Error("the command dialed Temporal; it should have failed validation first")
		return nil, errors.New("no server in this test")
	}
}

func TestUsageErrorsBeforeDialing(t *testing.T) {
	schemaFile := filepath.Join(t.TempDir(), "schema.json")
	require.NoError(t, os.WriteFile(schemaFile, []byte(`["not", "an", "object"]`), 0o600))

	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"run without --agent", []string{"run", "--task", "x"}, "--agent is required"},
		{"run without --task", []string{"run", "--agent", "travel"}, "--task is required"},
		{"run with blank --agent", []string{"run", "--agent", " ", "--task", "x"}, "--agent is required"},
		{"run with bad --input JSON", []string{"run", "--agent", "a", "--task", "x", "--input", "{nope"}, "--input is not valid JSON"},
		{"run with --input array", []string{"run", "--agent", "a", "--task", "x", "--input", "[1]"}, "--input must be a JSON object"},
		{"run with --input null", []string{"run", "--agent", "a", "--task", "x", "--input", "null"}, "--input must be a JSON object"},
		{"run with --input trailing data", []string{"run", "--agent", "a", "--task", "x", "--input", "{} {}"}, "--input has extra data"},
		{"run with bad --output-schema", []string{"run", "--agent", "a", "--task", "x", "--output-schema", `"string"`}, "--output-schema must be a JSON object"},
		{"run with missing schema file", []string{"run", "--agent", "a", "--task", "x", "--output-schema", "@/does/not/exist.json"}, "--output-schema: cannot read /does/not/exist.json"},
		{"run with schema file not an object", []string{"run", "--agent", "a", "--task", "x", "--output-schema", "@" + schemaFile}, "--output-schema (file " + schemaFile + ") must be a JSON object"},
		{"run with empty --task-queue", []string{"run", "--agent", "a", "--task", "x", "--task-queue", ""}, "--task-queue is empty"},
		{"run with stray argument", []string{"run", "--agent", "a", "--task", "book", "a", "flight"}, "takes no arguments"},
		{"run with unknown flag", []string{"run", "--agnet", "a"}, "unknown flag: --agnet"},
		{"status without id", []string{"status"}, "needs a WORKFLOW_ID"},
		{"status with two ids", []string{"status", "a", "b"}, "takes one WORKFLOW_ID"},
		{"trace without id", []string{"trace"}, "needs a WORKFLOW_ID"},
		{"trace with unknown format", []string{"trace", "wf-1", "--format", "dot"}, `unknown --format "dot": use one of table, json, mermaid`},
		{"budget with nothing to do", []string{"budget", "wf-1"}, `budget: give "raise" (amounts to add to the limits) or "stop": true (use --stop, or a raise such as --tool-calls 10)`},
		{"budget with a raise and a stop", []string{"budget", "wf-1", "--stop", "--tool-calls", "3"}, `give "raise" or "stop", not both`},
		{"budget with a negative raise", []string{"budget", "wf-1", "--cost", "-1"}, "raise.cost must be a positive amount of at most 1000000, got -1"},
		{"budget with a bad wall time", []string{"budget", "wf-1", "--wall-time", "soon"}, `--wall-time "soon" is not a duration`},
		{"budget with a tool raise of zero", []string{"budget", "wf-1", "--tool-calls-per-tool", "search=0"}, "raise.tool_calls_per_tool.search must be a positive amount, got 0"},
		{"budget with a tool raise that is not a count", []string{"budget", "wf-1", "--tool-calls-per-tool", "search"}, "search"},
		{"unknown command", []string{"stauts", "wf-1"}, `unknown command "stauts"; did you mean status?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, noDial(t), tt.args...)
			require.Equal(t, exitUsage, r.code, "stderr: %s", r.stderr)
			require.Contains(t, r.stderr, tt.want)
			require.True(t, strings.HasPrefix(r.stderr, "unstuck: "), r.stderr)
			require.Contains(t, r.stderr, "--help' for usage.")
			require.Empty(t, r.stdout)
		})
	}
}

func TestDialFailureNamesServerAndSuggestsDevServer(t *testing.T) {
	var got client.Options
	dial := func(_ context.Context, opts client.Options) (client.Client, error) {
		got = opts
		return nil, errors.New("connection refused")
	}
	r := runCLI(t, dial, "--address", "10.0.0.9:7233", "--namespace", "agents-ns", "status", "wf-1")
	require.Equal(t, exitFailure, r.code)
	require.Equal(t, "10.0.0.9:7233", got.HostPort)
	require.Equal(t, "agents-ns", got.Namespace)
	require.Contains(t, r.stderr, `unstuck: cannot reach Temporal at 10.0.0.9:7233 (namespace "agents-ns"): connection refused`)
	require.Contains(t, r.stderr, "make demo")
	require.Contains(t, r.stderr, "temporal server start-dev")
}

func TestConnectionFlagsDefaultFromEnvironment(t *testing.T) {
	t.Setenv("TEMPORAL_ADDRESS", "temporal.example:7233")
	t.Setenv("TEMPORAL_NAMESPACE", "prod")
	var got client.Options
	dial := func(_ context.Context, opts client.Options) (client.Client, error) {
		got = opts
		return nil, errors.New("down")
	}
	runCLI(t, dial, "trace", "wf-1")
	require.Equal(t, "temporal.example:7233", got.HostPort)
	require.Equal(t, "prod", got.Namespace)
}

func TestHelpDoesNotDial(t *testing.T) {
	for _, args := range [][]string{{}, {"--help"}, {"run", "--help"}, {"status", "-h"}, {"help", "trace"}, {"edit", "--help"}, {"fork", "-h"}, {"handoff", "--help"}} {
		r := runCLI(t, noDial(t), args...)
		require.Equal(t, exitOK, r.code, "%v: %s", args, r.stderr)
		require.Contains(t, r.stdout, "Usage:", "%v", args)
	}
}

// cobraGenerated are the commands cobra adds itself.
var cobraGenerated = map[string]bool{"help": true, "completion": true}

func TestEveryCommandIsDocumented(t *testing.T) {
	root := newRootCmd(&cli{dial: noDial(t)})
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		if cobraGenerated[cmd.Name()] {
			return
		}
		t.Run(cmd.CommandPath(), func(t *testing.T) {
			require.NotEmpty(t, strings.TrimSpace(cmd.Short), "Short")
			require.NotEmpty(t, strings.TrimSpace(cmd.Long), "Long")
			require.NotEmpty(t, strings.TrimSpace(cmd.Example), "Example")
		})
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func TestCommandsNameTheirTemporalEquivalent(t *testing.T) {
	root := newRootCmd(&cli{dial: noDial(t)})
	for name, want := range map[string]string{
		"run":    "temporal workflow start --type AgentWorkflow --task-queue agents",
		"status": "temporal workflow query --workflow-id WORKFLOW_ID --name status",
		"trace":  "temporal workflow query --workflow-id WORKFLOW_ID --name trace",
		"edit":   "temporal workflow update execute --workflow-id WORKFLOW_ID --name edit",
		"budget": "temporal workflow update execute --workflow-id WORKFLOW_ID --name budget",
		"handoff": `temporal workflow update execute --workflow-id WORKFLOW_ID --name handoff \
    --input '{"to": "refunds", "note": `,
		"fork": `temporal workflow start --type AgentWorkflow --task-queue agents \
    --workflow-id travel-1-fork-1 \
    --input '{"from": {"workflow_id": "travel-1", "node_id": "n7"`,
	} {
		cmd, _, err := root.Find([]string{name})
		require.NoError(t, err)
		require.Contains(t, cmd.Long, want, name)
	}
}
