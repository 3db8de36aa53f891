package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/load"
)

// Rolling deploy and rollback (issue 32, item 1): a load of agent runs
// (load, the engine of `unstuck load`) on worker processes of
// build A; build B starts and takes over while the load goes on; then a
// rollback to A; every run is followed to its end and every run's history
// is read for failed workflow tasks and for the builds that completed its
// workflow tasks.
//
//   - versioned: A is the worker of rollingVersionedA (the first commit
//     with Worker Versioning), B this tree's, both versions of one
//     deployment; the deploy is `set-current-version B` (A keeps running,
//     its runs pinned to it), the rollback `set-current-version A` (B keeps
//     running until its runs end). Each run must stay on the build that
//     started it.
//   - unversioned: A is the released worker (releasedCommit, the
//     upgrade test's), B this tree's, on one queue without versioning;
//     the deploy starts B and stops A, the rollback starts A and stops B.
//     Runs that B started and A cannot replay then fail their workflow
//     tasks; after rollingStuckWait B comes back (rolled forward again) so
//     the load can end, and what failed is counted.

const (
	// rollingVersionedA is the first commit whose worker has the
	// versioning flags: build A of the versioned side.
	rollingVersionedA = "1f1e0ad"
	// releasedCommit is the last release (Makefile RELEASED_COMMIT):
	// build A of the unversioned side.
	releasedCommit = "93ddf9d"

	rollingRuns        = 200
	rollingConcurrency = 40
	rollingSteps       = 10
	// rollingStuckWait is how long the unversioned rollback is left alone
	// before B returns.
	rollingStuckWait = 20 * time.Second
)

// BenchmarkRollingDeploy runs the versioned and the unversioned rolling
// deploy with rollback one after the other and reports, for each, failed
// workflow tasks, the runs with any, the runs whose workflow tasks more
// than one build completed, and how many runs each build started.
func BenchmarkRollingDeploy(b *testing.B) {
	now := buildWorker(b)
	versionedA := buildWorkerAt(b, rollingVersionedA)
	released := buildWorkerAt(b, releasedCommit)
	for range b.N {
		v := rollingDeploy(b, rollingSide{name: "versioned", a: versionedA, b: now, versioned: true})
		u := rollingDeploy(b, rollingSide{name: "unversioned", a: released, b: now})
		for _, s := range []rollingOutcome{v, u} {
			b.Logf("%s: %s", s.name, s)
		}
		b.ReportMetric(float64(v.failedTasks), "versioned-failed-workflow-tasks")
		b.ReportMetric(float64(v.mixedRuns), "versioned-runs-on-two-builds")
		b.ReportMetric(float64(v.rep.Completed), "versioned-completed")
		b.ReportMetric(float64(u.failedTasks), "unversioned-failed-workflow-tasks")
		b.ReportMetric(float64(u.runsWithFailures), "unversioned-runs-with-failed-tasks")
		b.ReportMetric(float64(u.mixedRuns), "unversioned-runs-on-two-builds")
		b.ReportMetric(float64(u.rep.Completed), "unversioned-completed")
		if v.failedTasks != 0 || v.mixedRuns != 0 {
			b.Errorf("versioned: %d failed workflow tasks, %d runs on two builds: want 0 and 0", v.failedTasks, v.mixedRuns)
		}
		if v.rep.Completed != rollingRuns {
			b.Errorf("versioned: %d of %d runs completed", v.rep.Completed, rollingRuns)
		}
		if v.startedOn["B"] == 0 || v.startedOn["A"] == 0 {
			b.Errorf("versioned: runs started on A %d, on B %d: the deploy or the rollback did not route new runs", v.startedOn["A"], v.startedOn["B"])
		}
	}
}

// rollingSide is one side of the benchmark: its two worker binaries.
type rollingSide struct {
	name      string
	a, b      string
	versioned bool
}

// rollingOutcome is what one side's load and histories say.
type rollingOutcome struct {
	name                          string
	rep                           *load.Report
	failedTasks, runsWithFailures int
	// causes counts the failed workflow tasks by cause.
	causes map[string]int
	// mixedRuns had workflow tasks completed by both builds.
	mixedRuns int
	// startedOn counts runs by the build that completed their first
	// workflow task ("A", "B").
	startedOn map[string]int
	// events are the deploy's steps, with the completed runs at each.
	events []string
}

func (o rollingOutcome) String() string {
	return fmt.Sprintf("%d/%d completed (%d failed), started on A %d, on B %d; %d failed workflow tasks in %d runs %v; %d runs with workflow tasks of both builds; steps: %s",
		o.rep.Completed, o.rep.Runs, o.rep.Failed, o.startedOn["A"], o.startedOn["B"], o.failedTasks, o.runsWithFailures, o.causes,
		o.mixedRuns, strings.Join(o.events, "; "))
}

// rollingWorker is a worker process of one build.
type rollingWorker struct {
	build string // "A" or "B"
	cmd   *exec.Cmd
}

func (w *rollingWorker) stop() {
	_ = w.cmd.Process.Signal(os.Interrupt) // a graceful stop, as a deploy does
	done := make(chan struct{})
	go func() { _ = w.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = w.cmd.Process.Kill()
		<-done
	}
}

// rollingDeploy runs one side: the load on A, the deploy of B at a
// quarter of the runs completed, the rollback at half.
func rollingDeploy(b *testing.B, s rollingSide) rollingOutcome {
	b.Helper()
	ctx := context.Background()
	cfgPath := filepath.Join(b.TempDir(), "rolling.yaml")
	yaml := fmt.Sprintf(`
model: { base_url: %q, name: bench }
tools:
  - { name: noop, builtin: noop, parameters: { type: object } }
agents:
  - { name: bench, instructions: Benchmark., tools: [noop], policies: { max_steps: 100 } }
`, model.URL())
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o644); err != nil {
		b.Fatal(err)
	}
	stamp := time.Now().Format("150405.000000")
	queue := "rolling-" + s.name + "-" + stamp
	deployment := "rolling-" + strings.ReplaceAll(stamp, ".", "-")
	// identities maps a worker process's pid to its build, for the
	// unversioned side (whose histories name workers, not versions).
	var mu sync.Mutex
	identities := map[string]string{}
	var workers []*rollingWorker
	start := func(build, bin string) *rollingWorker {
		args := []string{"--config", cfgPath, "--task-queue", queue}
		if s.versioned {
			args = append(args, "--deployment-name", deployment, "--build-id", build)
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+devAddress, "OTEL_EXPORTER_OTLP_ENDPOINT=",
			"UNSTUCK_DEPLOYMENT_NAME=", "UNSTUCK_BUILD_ID=", "UNSTUCK_BOOTSTRAP_CURRENT=")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		w := &rollingWorker{build: build, cmd: cmd}
		mu.Lock()
		identities[strconv.Itoa(cmd.Process.Pid)] = build
		workers = append(workers, w)
		mu.Unlock()
		return w
	}
	defer func() {
		for _, w := range workers {
			if w.cmd.ProcessState == nil {
				_ = w.cmd.Process.Kill()
				_ = w.cmd.Wait()
			}
		}
	}()
	var events []string
	var completed atomic.Int64
	note := func(format string, args ...any) {
		e := fmt.Sprintf("at %d completed: ", completed.Load()) + fmt.Sprintf(format, args...)
		events = append(events, e)
		fmt.Fprintf(os.Stderr, "bench: %s: %s\n", s.name, e)
	}
	setCurrent := func(build string) {
		h := devClient.WorkerDeploymentClient().GetHandle(deployment)
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, err := h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: build})
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("set-current-version %s: %v", build, err)
			}
			time.Sleep(200 * time.Millisecond) // registered once its worker polls
		}
		for {
			d, err := devClient.DescribeTaskQueue(ctx, queue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
			if err == nil && d.GetVersioningInfo().GetCurrentDeploymentVersion().GetBuildId() == build {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("the queue does not route to %s: %v", build, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		note("%s current", build)
	}
	waitPolling := func(n int) {
		deadline := time.Now().Add(30 * time.Second)
		for {
			d, err := devClient.DescribeTaskQueue(ctx, queue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
			if err == nil && len(d.GetPollers()) >= n {
				return
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d workers do not poll %s: %v", n, queue, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	a := start("A", s.a)
	waitPolling(1)
	if s.versioned {
		setCurrent("A") // A's build predates the bootstrap: the operator's first step
	}

	progress := &watchWriter{w: benchProgress(b), on: func(line string) {
		if _, c, _, ok := progressCounts(line); ok {
			completed.Store(int64(c))
		}
	}}
	waitFor := func(n int) {
		for completed.Load() < int64(n) {
			time.Sleep(100 * time.Millisecond)
		}
	}
	deployDone := make(chan struct{})
	go func() {
		defer close(deployDone)
		waitFor(rollingRuns / 4)
		bw := start("B", s.b)
		note("B started")
		if s.versioned {
			setCurrent("B") // A keeps running: its runs are pinned to it
		} else {
			waitPolling(2)
			a.stop()
			note("A stopped")
		}
		waitFor(rollingRuns / 2)
		if s.versioned {
			setCurrent("A") // rollback; B keeps running until its runs end
			return
		}
		a = start("A", s.a)
		waitPolling(2)
		bw.stop()
		note("rollback: A started, B stopped")
		time.Sleep(rollingStuckWait)
		start("B", s.b)
		note("B back after %s (rolled forward again, so every run can end)", rollingStuckWait)
	}()
	prefix := "bench-" + queue
	rep, err := load.Run(ctx, devClient, load.Options{
		Agent: "bench", Task: fmt.Sprintf("steps=%d", rollingSteps), Runs: rollingRuns, Concurrency: rollingConcurrency,
		TaskQueue: queue, Progress: progress, Setup: s.name + " rolling deploy", IDPrefix: prefix, RunTimeout: 5 * time.Minute,
	})
	<-deployDone
	if err != nil {
		b.Fatal(err)
	}
	out := rollingOutcome{name: s.name, rep: rep, causes: map[string]int{}, startedOn: map[string]int{}, events: events}
	for i := range rollingRuns {
		readRollingHistory(b, fmt.Sprintf("%s-%d", prefix, i), identities, &out)
	}
	return out
}

// readRollingHistory reads one run's history (the first generation: these
// runs do not continue as new) and adds its figures to out: its failed
// workflow tasks and their causes, the build of its first completed
// workflow task, and whether another build completed any of the others.
// A versioned history names the version of each completed task; an
// unversioned one names the worker (pid@host) that started it.
func readRollingHistory(b *testing.B, id string, identities map[string]string, out *rollingOutcome) {
	b.Helper()
	failed := 0
	builds := map[string]bool{}
	first := ""
	started := map[int64]string{} // workflow task started event id -> build
	eachEvent(b, id, "", func(ev *historypb.HistoryEvent) {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
			pid, _, _ := strings.Cut(ev.GetWorkflowTaskStartedEventAttributes().GetIdentity(), "@")
			started[ev.GetEventId()] = identities[pid]
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
			failed++
			out.causes[strings.TrimPrefix(ev.GetWorkflowTaskFailedEventAttributes().GetCause().String(), "WORKFLOW_TASK_FAILED_CAUSE_")]++
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			at := ev.GetWorkflowTaskCompletedEventAttributes()
			build := at.GetDeploymentVersion().GetBuildId()
			if build == "" {
				build = started[at.GetStartedEventId()]
			}
			if first == "" {
				first = build
			}
			builds[build] = true
		}
	})
	out.failedTasks += failed
	if failed > 0 {
		out.runsWithFailures++
	}
	out.startedOn[first]++
	if len(builds) > 1 {
		out.mixedRuns++
	}
}
