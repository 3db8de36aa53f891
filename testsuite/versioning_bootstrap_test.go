package testsuite

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/internal/testutil"
	"github.com/unstuck-dev/unstuck/workflows"
)

// The real worker binary on a deployment that has no current version yet
// makes its own build current (so its runs start without an operator);
// a second build of the same deployment leaves the current version alone
// and says how to roll it out; an unversioned worker on the queue is
// refused at start with the fix.
//
// Beside make test's other layers it can take over 30 s: the first tests
// to call binaries wait for its one build of the worker and the CLI.
func TestWorkerBootstrapsItsDeployment(t *testing.T) {
	t.Parallel()
	model, err := scriptedmodel.Start("127.0.0.1:0", scriptedmodel.Scenarios(), "", scriptedmodel.WithLogf(t.Logf))
	require.NoError(t, err)
	defer model.Close()
	bins := binaries(t)
	cfgPath := filepath.Join(t.TempDir(), "agents.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte(strings.ReplaceAll(travelConfig, "{{MODEL}}", model.URL())), 0o644))
	queue := fmt.Sprintf("bootstrap-%d", time.Now().UnixNano())
	deployment := fmt.Sprintf("unstuck-%d", time.Now().UnixNano())
	ctx := context.Background()

	worker := func(flags ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bins, "unstuck-worker"), append([]string{"--config", cfgPath, "--task-queue", queue}, flags...)...)
		cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+serverAddress, "TEMPORAL_NAMESPACE=default",
			"UNSTUCK_DEPLOYMENT_NAME=", "UNSTUCK_BUILD_ID=", "UNSTUCK_BOOTSTRAP_CURRENT=")
		return cmd
	}
	start := func(build string) *testutil.Buffer {
		var logs testutil.Buffer
		cmd := worker("--deployment-name", deployment, "--build-id", build)
		cmd.Stdout, cmd.Stderr = &logs, &logs
		require.NoError(t, cmd.Start())
		t.Cleanup(func() {
			_ = cmd.Process.Signal(os.Interrupt)
			_ = cmd.Wait()
			if t.Failed() {
				t.Logf("worker %s:\n%s", build, logs.String())
			}
		})
		return &logs
	}
	current := func() string {
		d, err := serverClient.WorkerDeploymentClient().GetHandle(deployment).Describe(ctx, client.WorkerDeploymentDescribeOptions{})
		require.NoError(t, err)
		return versionOf(d.Info.RoutingConfig.CurrentVersion)
	}
	runOn := func() string {
		r, err := serverClient.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID: fmt.Sprintf("%s-%d", queue, time.Now().UnixNano()), TaskQueue: queue, WorkflowExecutionTimeout: time.Minute,
		}, workflows.WorkflowName, workflows.AgentInput{Agent: "travel", Task: "Book NYC to LAX on 2024-01-15 for me"})
		require.NoError(t, err)
		c, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		var res workflows.AgentResult
		require.NoError(t, r.Get(c, &res))
		require.Equal(t, "completed", res.Status)
		d, err := serverClient.DescribeWorkflowExecution(ctx, r.GetID(), r.GetRunID())
		require.NoError(t, err)
		return d.GetWorkflowExecutionInfo().GetVersioningInfo().GetDeploymentVersion().GetBuildId()
	}

	a := start("b1")
	require.Eventually(t, func() bool {
		return strings.Contains(a.String(), "worker deployment "+deployment+" had no current version: made this build (b1) current")
	}, 30*time.Second, 100*time.Millisecond, "the first build makes itself current")
	require.Equal(t, "b1", current())
	require.Equal(t, "b1", runOn(), "a run starts on it with no operator step")

	b := start("b2")
	require.Eventually(t, func() bool {
		return strings.Contains(b.String(), "current version is b1; left as it is: this build (b2) gets new runs once you make it current")
	}, 30*time.Second, 100*time.Millisecond, "a later build leaves the current version alone")
	require.Contains(t, b.String(), "temporal worker deployment set-current-version --deployment-name "+deployment+" --build-id b2 -y")
	require.Equal(t, "b1", current(), "the current version is the operator's")
	require.Equal(t, "b1", runOn())

	// An unversioned build on a queue whose runs are pinned gets none of
	// their tasks: refused, with the flags that fix it.
	out, err := worker().CombinedOutput()
	require.Error(t, err, "an unversioned worker on a versioned queue must not start")
	require.Contains(t, string(out), "is served by worker deployment "+deployment)
	require.Contains(t, string(out), "--deployment-name "+deployment+" --build-id <this build>")
}

func versionOf(v *sdkworker.WorkerDeploymentVersion) string {
	if v == nil {
		return ""
	}
	return v.BuildID
}
