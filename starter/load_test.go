package main

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

func TestLoadUsageErrorsNameTheFlag(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"runs 0", []string{"load", "--runs", "0"}, "--runs must be at least 1, not 0"},
		{"runs negative", []string{"load", "--runs", "-3"}, "--runs must be at least 1, not -3"},
		{"concurrency 0", []string{"load", "--concurrency", "0"}, "--concurrency must be at least 1, not 0"},
		{"concurrency negative", []string{"load", "--runs", "5", "--concurrency", "-1"}, "--concurrency must be at least 1, not -1"},
		{"runs not a number", []string{"load", "--runs", "many"}, `invalid argument "many" for "--runs"`},
		{"steps 0", []string{"load", "--steps", "0"}, "--steps must be at least 1, not 0"},
		{"negative tool latency", []string{"load", "--tool-latency", "-1s"}, "--tool-latency must not be negative"},
		{"negative history sample", []string{"load", "--history-sample", "-1"}, "--history-sample must not be negative"},
		{"zero run timeout", []string{"load", "--run-timeout", "0s"}, "--run-timeout must be positive"},
		{"empty task queue", []string{"load", "--task-queue", " "}, "--task-queue is empty"},
		{"another agent without config", []string{"load", "--agent", "travel"}, `--agent "travel": the self-contained load runs only the agent "load"`},
		{"task without config", []string{"load", "--task", "x"}, "--task is for --config"},
		{"config without agent", []string{"load", "--config", "agents.yaml", "--task", "x"}, "--agent is required with --config"},
		{"config without task", []string{"load", "--config", "agents.yaml", "--agent", "a"}, "--task is required with --config"},
		{"steps with config", []string{"load", "--config", "agents.yaml", "--agent", "a", "--task", "x", "--steps", "3"}, "--steps is for the self-contained load"},
		{"tool latency with config", []string{"load", "--config", "agents.yaml", "--agent", "a", "--task", "x", "--tool-latency", "1s"}, "--tool-latency is for the self-contained load"},
		{"stray argument", []string{"load", "1000"}, "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, noDial(t), tt.args...)
			require.Equal(t, exitUsage, r.code, "stderr: %s", r.stderr)
			require.Contains(t, r.stderr, tt.want)
			require.True(t, strings.HasPrefix(r.stderr, "unstuck: "), r.stderr)
			require.Contains(t, r.stderr, "Run 'unstuck load --help' for usage.")
			require.Empty(t, r.stdout)
		})
	}
}

// TestLoadOfAnUnreachableServerFailsAtOnce dials a loopback port nobody
// listens on, with the real dialer: the error names the address, and
// nothing is started.
func TestLoadOfAnUnreachableServerFailsAtOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	address := ln.Addr().String()
	require.NoError(t, ln.Close())

	r := runCLI(t, dialTemporal, "--address", address, "load", "--runs", "5", "--concurrency", "2")
	require.Equal(t, exitFailure, r.code, "stderr: %s", r.stderr)
	require.Contains(t, r.stderr, "unstuck: load: cannot reach Temporal at "+address)
	require.Contains(t, r.stderr, "temporal server start-dev")
	require.Empty(t, r.stdout, "no report without a server")
}

// TestLoadClampsConcurrencyToRuns: more concurrency than runs is not a
// mistake, just more than can be used; it is said and clamped.
func TestLoadClampsConcurrencyToRuns(t *testing.T) {
	var dialed bool
	dial := func(context.Context, client.Options) (client.Client, error) {
		dialed = true
		return nil, errors.New("no server in this test")
	}
	r := runCLI(t, dial, "load", "--runs", "5", "--concurrency", "200")
	require.True(t, dialed, "a clamped concurrency is no usage error")
	require.Equal(t, exitFailure, r.code)
	require.Contains(t, r.stderr, "load: --concurrency 200 is above --runs 5: running all 5 at once")
}

func TestLoadWithAMissingConfigFailsBeforeDialing(t *testing.T) {
	r := runCLI(t, noDial(t), "load", "--config", "/does/not/exist.yaml", "--agent", "a", "--task", "x")
	require.Equal(t, exitFailure, r.code)
	require.Contains(t, r.stderr, "unstuck: load: --config:")
	require.Contains(t, r.stderr, "/does/not/exist.yaml")
}
