package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Worker Versioning on the real server: runs started on build A stay on
// A while B becomes current (even with A's worker down for a while, B
// never takes them), new runs go to B, and a rollback to A leaves B's
// runs on B. An unversioned worker is refused on the queue.
func TestWorkerVersioningPinsRuns(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse(t.Name()+".yaml", []byte(strings.ReplaceAll(approverConfig(10), "{{MODEL}}", "http://127.0.0.1:1/v1")),
		app.ConfigOptions())
	require.NoError(t, err)
	queue := fmt.Sprintf("versioned-%d", time.Now().UnixNano())
	deployment := fmt.Sprintf("agents-%d", time.Now().UnixNano())
	ctx := context.Background()

	start := func(build string) *app.Workers {
		v := app.Versioning{DeploymentName: deployment, BuildID: build}
		require.NoError(t, v.Validate())
		ws, err := app.NewWorkers(serverClient, cfg, queue, v.Apply(workerOptions()))
		require.NoError(t, err)
		require.NoError(t, ws.Start())
		return ws
	}
	setCurrent := func(build string) {
		h := serverClient.WorkerDeploymentClient().GetHandle(deployment)
		// The version exists once its worker has polled.
		require.Eventually(t, func() bool {
			_, err := h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: build, IgnoreMissingTaskQueues: true})
			return err == nil
		}, 30*time.Second, 200*time.Millisecond, "set %s current", build)
		// The queue routes to it once its workflow poller is part of it.
		require.Eventually(t, func() bool {
			d, err := serverClient.DescribeTaskQueue(ctx, queue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
			return err == nil && d.GetVersioningInfo().GetCurrentDeploymentVersion().GetBuildId() == build
		}, 30*time.Second, 100*time.Millisecond, "the queue routes to %s", build)
	}
	run := func() client.WorkflowRun {
		r, err := serverClient.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID: fmt.Sprintf("%s-%d", queue, time.Now().UnixNano()), TaskQueue: queue, WorkflowExecutionTimeout: 5 * time.Minute,
		}, workflows.WorkflowName, workflows.AgentInput{Agent: "approver", Task: "get approval"})
		require.NoError(t, err)
		return r
	}
	// pinnedTo is the build a run is pinned to, once its first workflow
	// task is done.
	pinnedTo := func(r client.WorkflowRun) string {
		var build string
		require.Eventually(t, func() bool {
			d, err := serverClient.DescribeWorkflowExecution(ctx, r.GetID(), r.GetRunID())
			if err != nil {
				return false
			}
			vi := d.GetWorkflowExecutionInfo().GetVersioningInfo()
			if vi.GetBehavior() != enumspb.VERSIONING_BEHAVIOR_PINNED {
				return false
			}
			build = vi.GetDeploymentVersion().GetBuildId()
			return build != ""
		}, 30*time.Second, 100*time.Millisecond)
		return build
	}
	awaitingHuman := func(r client.WorkflowRun) {
		require.Eventually(t, func() bool {
			v, err := serverClient.QueryWorkflow(ctx, r.GetID(), r.GetRunID(), signals.QueryStatus)
			var st signals.Status
			return err == nil && v.Get(&st) == nil && st.Phase == signals.PhaseAwaitingHuman
		}, 30*time.Second, 100*time.Millisecond)
	}
	reply := func(r client.WorkflowRun) {
		require.NoError(t, serverClient.SignalWorkflow(ctx, r.GetID(), r.GetRunID(), signals.Reply,
			signals.ReplyRequest{Text: "approved", Output: json.RawMessage(`{"approved": true}`)}))
	}
	completed := func(r client.WorkflowRun) {
		c, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		var res workflows.AgentResult
		require.NoError(t, r.Get(c, &res))
		require.JSONEq(t, `{"approved": true}`, string(res.Output))
	}

	a := start("build-a")
	setCurrent("build-a")
	r1 := run()
	require.Equal(t, "build-a", pinnedTo(r1))
	awaitingHuman(r1)

	b := start("build-b")
	defer b.Stop()
	setCurrent("build-b")
	r2 := run()
	require.Equal(t, "build-b", pinnedTo(r2), "a new run goes to the current build")
	awaitingHuman(r2)
	// The query of docs/deploying.md for the runs still on a build.
	running := func(build string) int64 {
		c, err := serverClient.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: fmt.Sprintf(
			"TemporalWorkerDeploymentVersion = '%s:%s' AND ExecutionStatus = 'Running'", deployment, build)})
		if err != nil {
			return -1 // asked again
		}
		return c.GetCount()
	}
	require.Eventually(t, func() bool { return running("build-a") == 1 && running("build-b") == 1 }, 20*time.Second, 200*time.Millisecond)

	// A's worker goes away; r1's next task waits for A, B never takes it.
	a.Stop()
	reply(r1)
	time.Sleep(3 * time.Second)
	d, err := serverClient.DescribeWorkflowExecution(ctx, r1.GetID(), r1.GetRunID())
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, d.GetWorkflowExecutionInfo().GetStatus(), "B did not take A's run")
	a2 := start("build-a") // A back (a restart, or A's remaining replicas)
	defer a2.Stop()
	completed(r1)
	require.Equal(t, "build-a", pinnedTo(r1), "r1 ran on A to its end")

	// Rollback: A current again; B's run stays on B, new runs go to A.
	setCurrent("build-a")
	r3 := run()
	require.Equal(t, "build-a", pinnedTo(r3))
	reply(r2)
	completed(r2)
	require.Equal(t, "build-b", pinnedTo(r2), "after the rollback B's run finished on B")
	awaitingHuman(r3)
	reply(r3)
	completed(r3)

	// An unversioned worker on this queue would get none of its runs.
	err = app.CheckQueueVersioning(ctx, serverClient, queue, app.Versioning{})
	require.ErrorContains(t, err, "is served by worker deployment "+deployment)
	require.ErrorContains(t, err, "--deployment-name "+deployment)
	require.NoError(t, app.CheckQueueVersioning(ctx, serverClient, queue, app.Versioning{DeploymentName: deployment, BuildID: "build-c"}))
	err = app.CheckQueueVersioning(ctx, serverClient, queue, app.Versioning{DeploymentName: "another", BuildID: "b1"})
	require.ErrorContains(t, err, "belongs to worker deployment "+deployment+", not another")
	require.NoError(t, app.CheckQueueVersioning(ctx, serverClient, fmt.Sprintf("unknown-%d", time.Now().UnixNano()), app.Versioning{}), "a queue nobody serves yet")
}
