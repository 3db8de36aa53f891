package testsuite

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A tuning flag below 1 is refused at worker start, naming the flag, with
// exit status 1; so is a setting of the config's worker block, naming the
// field and its line. --help documents the flags with the SDK's defaults.
//
// Beside make test's other layers it can take over 30 s: the first tests
// to call binaries wait for its one build of the worker and the CLI.
func TestWorkerRefusesBadTuning(t *testing.T) {
	t.Parallel()
	bins := binaries(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "agents.yaml")
	require.NoError(t, os.WriteFile(good, []byte(`model: { base_url: "http://127.0.0.1:9/v1", name: m }
tools:
  - { name: slow, http: { url: "http://127.0.0.1:9/slow" }, max_concurrent: 20, rate: 50/s }
agents:
  - { name: a, instructions: x, tools: [slow] }
`), 0o644))
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte(`model: { base_url: "http://127.0.0.1:9/v1", name: m }
tools:
  - { name: slow, http: { url: "http://127.0.0.1:9/slow" }, max_concurrent: 0, rate: 50/d }
agents:
  - { name: a, instructions: x, tools: [slow] }
worker:
  max_concurrent_activities: 0
`), 0o644))

	worker := func(args ...string) (string, int) {
		cmd := exec.Command(filepath.Join(bins, "unstuck-worker"), args...)
		cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+serverAddress)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return string(out), exit.ExitCode()
		}
		require.NoError(t, err, "%s", out)
		return string(out), 0
	}

	out, code := worker("--config", good, "--max-concurrent-activities", "0")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "unstuck-worker: --max-concurrent-activities: must be at least 1, got 0")

	out, code = worker("--config", good, "--workflow-pollers=-2")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "--workflow-pollers: must be at least 1, got -2")

	out, code = worker("--config", bad)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "bad.yaml:3: tools[0].max_concurrent: must be at least 1, got 0")
	require.Contains(t, out, `bad.yaml:3: tools[0].rate: invalid rate "50/d"`)
	require.Contains(t, out, "bad.yaml:7: worker.max_concurrent_activities: must be at least 1, got 0")

	out, code = worker("--help")
	require.Equal(t, 0, code, out)
	for _, flag := range []string{"-max-concurrent-workflow-tasks", "-max-concurrent-activities", "-workflow-pollers", "-activity-pollers", "-sticky-cache-size"} {
		require.Contains(t, out, flag)
	}
	require.Contains(t, out, "(default 1000)")
}
