package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/load"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Scale out (issue 18): a thousand concurrent runs of a 5-step agent.
//
//   - one worker: unstuck's AgentWorkflow against BareWorkflow (the same
//     model and tool activities in the plainest loop) on the harness's
//     in-process worker, 1,000 runs each, all in flight at once;
//   - worker processes (bin/unstuck-worker, built here): 1,000 runs on one
//     process, then on two sharing a task queue, then on two of which one
//     is killed with SIGKILL halfway.
//
// The processes' agent calls a write tool (the load package's tool
// server, which records each call's Idempotency-Key) five times.

const (
	scaleRuns  = 1000
	scaleSteps = 5
)

// BenchmarkScaleOneWorker: throughput of 1,000 concurrent 5-step runs on
// one worker, unstuck against the bare loop, and the workflow tasks that
// failed (goal: ratio ≥ 1.5x, 0 failed tasks). The bare loop runs before
// and after unstuck, and the ratio is against the mean of the two: a
// server (and a shared machine) slows as its store fills, so one bare load
// after unstuck would be measured on harder terms than unstuck was.
func BenchmarkScaleOneWorker(b *testing.B) {
	for i := 0; i < b.N; i++ {
		task := fmt.Sprintf("steps=%d", scaleSteps)
		before := bareLoad(b, scaleRuns, task)
		rep, err := load.Run(context.Background(), devClient, load.Options{
			Agent: "bench", Task: task, Runs: scaleRuns, Concurrency: scaleRuns,
			TaskQueue: taskQueue, Progress: benchProgress(b), Setup: "the bench's in-process worker", HistorySample: 200,
		})
		if err != nil {
			b.Fatal(err)
		}
		after := bareLoad(b, scaleRuns, task)
		bare := (before + after) / 2
		b.ReportMetric(rep.RunsPerSecond, "unstuck-runs/s")
		b.ReportMetric(before, "bare-before-runs/s")
		b.ReportMetric(after, "bare-after-runs/s")
		b.ReportMetric(rep.RunsPerSecond/bare, "throughput-ratio")
		b.ReportMetric(float64(rep.Failed), "unstuck-failed-runs")
		b.ReportMetric(float64(rep.Server.WorkflowTaskFailures), "failed-workflow-tasks")
		b.ReportMetric(float64(rep.Server.HistoriesRead), "histories-read")
		b.ReportMetric(rep.StepLatency.P50, "step-p50-ms")
		b.ReportMetric(rep.StepLatency.P99, "step-p99-ms")
	}
}

// bareLoad starts runs of BareWorkflow, all at once, and answers completed
// runs per second of wall time.
func bareLoad(b *testing.B, runs int, task string) float64 {
	b.Helper()
	start := time.Now()
	var wg sync.WaitGroup
	var failed atomic.Int64
	for i := 0; i < runs; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprintf("bench-bare-scale-%d-%d", start.UnixNano(), i)
			run, err := devClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue}, "BareWorkflow",
				workflows.AgentInput{Agent: "bench", Task: task})
			if err == nil {
				err = run.Get(context.Background(), nil)
			}
			if err != nil {
				failed.Add(1)
			}
		}(i)
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		b.Fatalf("bare loop: %d of %d runs failed", n, runs)
	}
	return float64(runs) / time.Since(start).Seconds()
}

// BenchmarkScaleWorkerProcesses: 1,000 concurrent runs on one worker
// process, then on two sharing a task queue (goal: throughput rises, every
// run completes), then on two of which one is killed with SIGKILL when
// half the runs have completed (every run completes, every write carried
// one Idempotency-Key; the time to recover is reported).
func BenchmarkScaleWorkerProcesses(b *testing.B) {
	bin := buildWorker(b)
	for i := 0; i < b.N; i++ {
		one := scaleOnProcesses(b, bin, processLoad{procs: 1, runs: scaleRuns})
		two := scaleOnProcesses(b, bin, processLoad{procs: 2, runs: scaleRuns})
		killed := scaleOnProcesses(b, bin, processLoad{procs: 2, runs: scaleRuns, kill: true})
		b.ReportMetric(one.rep.RunsPerSecond, "one-process-runs/s")
		b.ReportMetric(two.rep.RunsPerSecond, "two-processes-runs/s")
		b.ReportMetric(two.rep.RunsPerSecond/one.rep.RunsPerSecond, "two-vs-one")
		for _, s := range []scaleOutcome{one, two, killed} {
			if s.rep.Completed != scaleRuns {
				b.Errorf("%s: %d of %d runs completed (%d failed)", s.name, s.rep.Completed, scaleRuns, s.rep.Failed)
			}
		}
		b.ReportMetric(float64(killed.rep.Completed), "killed-completed")
		b.ReportMetric(killed.rep.RunsPerSecond, "killed-runs/s")
		// The time to recover: from the kill to the last run's end, and
		// what the kill added to the wall time of the same load on two
		// processes (the dead worker's activities wait out their
		// start-to-close timeout before they are retried elsewhere).
		b.ReportMetric(killed.recover.Seconds(), "killed-kill-to-end-s")
		b.ReportMetric(killed.rep.WallSeconds-two.rep.WallSeconds, "killed-extra-wall-s")
		b.ReportMetric(float64(killed.retries), "killed-activities-taken-over")
		b.ReportMetric(killed.retryWait.Seconds(), "killed-recover-s")
		b.ReportMetric(float64(killed.keys.Keys), "killed-distinct-keys")
		b.ReportMetric(float64(killed.keys.WithoutKey+killed.keys.WithSeveralKeys), "killed-calls-without-one-key")
		b.ReportMetric(float64(killed.keys.Repeated), "killed-retried-calls")
		b.ReportMetric(float64(killed.rep.Server.WorkflowTaskFailures), "killed-failed-workflow-tasks")
	}
}

// BenchmarkScaleWorkerBound: the same two-process comparison where the
// workers, not the server, are the bottleneck: each process has few
// activity slots and the tool takes 500 ms, as with a worker tuned to
// protect what its tools hold. The goal is the issue's: throughput rises
// with the second process and every run completes, every call made once.
func BenchmarkScaleWorkerBound(b *testing.B) {
	bin := buildWorker(b)
	const runs, slots = 300, 6
	for i := 0; i < b.N; i++ {
		var outs [2]scaleOutcome
		for p := range outs {
			outs[p] = scaleOnProcesses(b, bin, processLoad{procs: p + 1, runs: runs,
				toolLatency: 500 * time.Millisecond, activitySlots: slots})
			s := outs[p]
			if s.rep.Completed != runs {
				b.Errorf("%s: %d of %d runs completed (%d failed)", s.name, s.rep.Completed, runs, s.rep.Failed)
			}
			// Every call reached the tool: none was given up while it
			// waited for a slot.
			if want := runs * scaleSteps; s.keys.Keys != want || s.keys.Calls != want {
				b.Errorf("%s: the tool saw %d calls with %d keys, want %d of each", s.name, s.keys.Calls, s.keys.Keys, want)
			}
		}
		b.ReportMetric(outs[0].rep.RunsPerSecond, "one-process-runs/s")
		b.ReportMetric(outs[1].rep.RunsPerSecond, "two-processes-runs/s")
		b.ReportMetric(outs[1].rep.RunsPerSecond/outs[0].rep.RunsPerSecond, "two-vs-one")
		b.ReportMetric(float64(outs[0].keys.Calls), "one-process-tool-calls")
		b.ReportMetric(float64(outs[1].keys.Calls), "two-processes-tool-calls")
	}
}

type scaleOutcome struct {
	name    string
	rep     *load.Report
	keys    load.KeyCounts
	recover time.Duration
	// retries are the activity attempts started after the kill that were
	// not first attempts (the dead worker's, taken over), and retryWait
	// how long after the kill the last of them started: the time until
	// every piece of work the dead worker held was running again.
	retries   int
	retryWait time.Duration
}

// retriesAfter reads every run's history (ids prefix-0 …) for activity
// attempts after the first that started after the kill, and prints each:
// its activity, attempt, when it started and why the one before ended.
func retriesAfter(b *testing.B, prefix string, runs int, kill time.Time) (int, time.Duration) {
	b.Helper()
	var n int
	var last time.Duration
	for i := 0; i < runs; i++ {
		types := map[int64]string{} // scheduled event id -> activity type
		eachEvent(b, fmt.Sprintf("%s-%d", prefix, i), "", func(ev *historypb.HistoryEvent) {
			if sc := ev.GetActivityTaskScheduledEventAttributes(); sc != nil {
				types[ev.GetEventId()] = sc.GetActivityType().GetName()
			}
			st := ev.GetActivityTaskStartedEventAttributes()
			if st == nil || st.GetAttempt() < 2 || !ev.GetEventTime().AsTime().After(kill) {
				return
			}
			n++
			after := ev.GetEventTime().AsTime().Sub(kill)
			last = max(last, after)
			why := st.GetLastFailure().GetMessage()
			if to := st.GetLastFailure().GetTimeoutFailureInfo(); to != nil {
				why = "timeout " + to.GetTimeoutType().String()
			}
			fmt.Fprintf(os.Stderr, "bench: taken over: %s-%d %s attempt %d started %.1f s after the kill (before: %s)\n",
				prefix, i, types[st.GetScheduledEventId()], st.GetAttempt(), after.Seconds(), why)
		})
	}
	return n, last
}

// processLoad is one load on worker processes: how many processes share
// the task queue, how many runs, whether the first process is killed
// halfway, the tool's latency, and the activity slots of each process
// (0: the default).
type processLoad struct {
	procs, runs   int
	kill          bool
	toolLatency   time.Duration
	activitySlots int
}

// scaleOnProcesses runs the load's runs of the write agent on its worker
// processes of one new task queue; with kill, the first process gets
// SIGKILL when half the runs have completed, and recover is how long the
// runs that were in flight then took to complete.
func scaleOnProcesses(b *testing.B, bin string, l processLoad) scaleOutcome {
	b.Helper()
	n, kill, runs := l.procs, l.kill, l.runs
	name := fmt.Sprintf("%d process(es)", n)
	if kill {
		name += ", one killed"
	}
	if l.activitySlots > 0 {
		name += fmt.Sprintf(", %d activity slots each", l.activitySlots)
	}
	tools, err := load.StartToolServer(l.toolLatency)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = tools.Close() }()
	cfgPath := filepath.Join(b.TempDir(), "scale.yaml")
	// Short timeouts, so a killed worker's activities are retried soon.
	worker := ""
	if l.activitySlots > 0 {
		worker = fmt.Sprintf("worker: { max_concurrent_activities: %d }", l.activitySlots)
	}
	yaml := fmt.Sprintf(`%s
model: { base_url: %q, name: bench, timeout: 5s }
tools:
  - { name: work, effect: write, http: { url: %q, timeout: 2s }, parameters: { type: object } }
agents:
  - { name: scale, instructions: Benchmark., tools: [work], policies: { max_steps: 50 } }
`, worker, model.URL(), tools.URL())
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o644); err != nil {
		b.Fatal(err)
	}
	queue := fmt.Sprintf("scale-%d-%d", n, time.Now().UnixNano())
	procs := make([]*exec.Cmd, n)
	for i := range procs {
		procs[i] = startWorkerProcess(b, bin, cfgPath, queue)
	}
	defer func() {
		for _, p := range procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
	}()
	var mu sync.Mutex
	var killedAt time.Time
	var inFlightAtKill int
	progress := &watchWriter{w: benchProgress(b), on: func(line string) {
		if !kill || !killedAt.IsZero() {
			return
		}
		started, completed, failed, ok := progressCounts(line)
		if !ok || completed < runs/2 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		_ = procs[0].Process.Kill() // SIGKILL
		killedAt = time.Now()
		inFlightAtKill = started - completed - failed
		fmt.Fprintf(os.Stderr, "bench: SIGKILL worker 1 of 2 with %d runs in flight\n", inFlightAtKill)
	}}
	prefix := fmt.Sprintf("bench-%s", queue)
	rep, err := load.Run(context.Background(), devClient, load.Options{
		Agent: "scale", Task: fmt.Sprintf("work=%d", scaleSteps), Runs: runs, Concurrency: runs,
		TaskQueue: queue, Progress: progress, Setup: name, HistorySample: min(200, runs), IDPrefix: prefix,
	})
	if err != nil {
		b.Fatal(err)
	}
	out := scaleOutcome{name: name, rep: rep, keys: tools.Keys()}
	if kill {
		mu.Lock()
		if killedAt.IsZero() {
			b.Fatalf("%s: the worker was never killed", name)
		}
		// The load ends when its last run completes: every run in flight
		// at the kill had completed by then, the surviving worker having
		// taken over the dead one's share.
		out.recover = time.Since(killedAt)
		out.retries, out.retryWait = retriesAfter(b, prefix, runs, killedAt)
		mu.Unlock()
	}
	fmt.Fprintf(os.Stderr, "bench: %s: %d completed, %.1f runs/s, keys %+v\n", name, rep.Completed, rep.RunsPerSecond, out.keys)
	return out
}

// buildWorker builds bin/unstuck-worker from this tree into a temp dir.
func buildWorker(b *testing.B) string {
	b.Helper()
	return buildBinary(b, "unstuck-worker", "./worker")
}

// buildBinary builds the package pkg of this tree into a temp dir as name.
func buildBinary(b *testing.B, name, pkg string) string {
	b.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(b.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = filepath.Dir(filepath.Dir(file))
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

func startWorkerProcess(b *testing.B, bin, cfgPath, queue string) *exec.Cmd {
	b.Helper()
	cmd := exec.Command(bin, "--config", cfgPath, "--task-queue", queue)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+devAddress, "OTEL_EXPORTER_OTLP_ENDPOINT=")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return cmd
}

// benchProgress is where load progress goes: stderr, so the benchmark's
// own output stays the figures.
func benchProgress(*testing.B) *os.File { return os.Stderr }

// watchWriter passes progress lines on and lets on read each.
type watchWriter struct {
	w  *os.File
	on func(line string)
}

func (w *watchWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(string(p), "\n") {
		if line != "" {
			w.on(line)
		}
	}
	return w.w.Write(p)
}

// progressCounts reads started, completed and failed from a load progress
// line ("load: 3s  started 120/1000  completed 80  failed 0 ...").
func progressCounts(line string) (started, completed, failed int, ok bool) {
	f := strings.Fields(line)
	for i := 0; i+1 < len(f); i++ {
		switch f[i] {
		case "started":
			_, err := fmt.Sscanf(f[i+1], "%d/", &started)
			ok = err == nil
		case "completed":
			completed, _ = strconv.Atoi(f[i+1])
		case "failed":
			failed, _ = strconv.Atoi(f[i+1])
		}
	}
	return started, completed, failed, ok
}
