package testsuite

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/eval"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// The example suite (examples/eval/demo, a case per fault the demo agents
// were recorded under) replays against the shipped demo config, its model
// the scripted model as `unstuck demo` sets it: every case passes, no call
// diverges and the suite exits 0.
func TestEvalExampleSuitePasses(t *testing.T) {
	t.Parallel()
	model := startModel(t, scriptedmodel.Scenarios(), scriptedmodel.TravelDemo)
	suite := filepath.Join(repoRoot, exampleSuiteDir)
	cases, err := eval.LoadDir(suite)
	require.NoError(t, err)
	require.Len(t, cases, len(demoFaults()), "a case per fault")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "unstuck"), "eval", "run", suite,
		"--config", filepath.Join(repoRoot, "starter", "demo_agents.yaml"), "--concurrency", "4", "--json", "--address", serverAddress)
	cmd.Env = append(os.Environ(), "UNSTUCK_DEMO_MODEL_URL="+model.URL())
	out := runCommand(t, cmd)
	require.Equal(t, 0, out.code, out.stderr)
	var sc eval.Scorecard
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &sc), out.stderr)
	require.Len(t, sc.Cases, len(cases))
	for _, c := range sc.Cases {
		require.True(t, c.PassK, "%s: %v", c.Case, c.Why)
		require.Equal(t, 0, c.Diverged, c.Case)
	}
}
