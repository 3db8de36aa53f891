package bench

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/unstuck-dev/unstuck/internal/testdouble/flakygraph"
)

// routeBackBefore is the commit before issue 26 (loop escape 3): its
// worker is the "before" side of BenchmarkRouteBack.
const routeBackBefore = "0d9ae46"

// BenchmarkRouteBack (issue 26): the seed's graph on flaky tools the way
// users run it (flakygraph: the default breaker, `loop: {window: 64,
// repeats: 3}`, max_steps 100, ladder [retry, explore, stop], B failing
// transiently 60% of the time, C 10%), with the seed's edges and with
// B's failures routed back to A, 20 and 200 runs at once on one worker
// process, fresh for each cell (its breaker closed). Each cell runs this
// tree's worker and the worker of routeBackBefore side by side, one after
// the other, so the machine's load touches both alike. Reported: the share
// of runs reaching E, steps to E, calls of B per run, and the calls of B
// the worker's breaker refused.
func BenchmarkRouteBack(b *testing.B) {
	now := buildWorker(b)
	before := buildWorkerAt(b, routeBackBefore)
	tools := flakygraph.NewTools()
	srv := httptest.NewServer(tools)
	defer srv.Close()
	for range b.N {
		for _, runs := range []int{20, 200} {
			for _, routeBack := range []bool{false, true} {
				for _, side := range []struct{ name, bin string }{{"before (" + routeBackBefore + ")", before}, {"now", now}} {
					sum, refused := routeBackCell(b, side.bin, srv.URL, tools, routeBack, runs)
					b.Logf("%s, %d runs at once, %s: %s; %d calls of B refused by the worker's breaker",
						flakygraph.Graph(routeBack), runs, side.name, sum, refused)
				}
			}
		}
	}
}

// routeBackCell runs one cell: runs seeds at once on a fresh worker
// process (bin) serving the scenario's config on a queue of its own.
func routeBackCell(b *testing.B, bin, toolsURL string, tools *flakygraph.Tools, routeBack bool, runs int) (flakygraph.Summary, int) {
	b.Helper()
	queue, stop := freshWorker(b, bin, flakygraph.Config(model.URL(), toolsURL, routeBack), "route-back")
	defer stop()
	seeds := make([]int, runs)
	for i := range seeds {
		seeds[i] = i
	}
	ctx := context.Background()
	outcomes := flakygraph.RunAll(ctx, devClient, queue, seeds, tools, 10*time.Minute)
	for _, o := range outcomes {
		if o.Err != nil {
			b.Fatal(o.Err)
		}
	}
	refused, err := flakygraph.WorkerRefusals(ctx, devClient, outcomes)
	if err != nil {
		b.Fatal(err)
	}
	return flakygraph.Summarize(outcomes), refused
}

// buildWorkerAt builds the worker of an earlier commit of this repository
// (git archive) into a temp dir.
func buildWorkerAt(b *testing.B, commit string) string {
	b.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	src := b.TempDir()
	archive := exec.Command("sh", "-c", "git archive "+commit+" | tar -x -C "+src)
	archive.Dir = root
	if out, err := archive.CombinedOutput(); err != nil {
		b.Fatalf("git archive %s (the bench needs the repository's history): %v\n%s", commit, err, out)
	}
	bin := filepath.Join(b.TempDir(), "unstuck-worker-"+commit)
	build := exec.Command("go", "build", "-o", bin, "./worker")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build the worker of %s: %v\n%s", commit, err, out)
	}
	return bin
}

// freshWorker starts a worker process (bin) of cfg on a new task queue
// named after prefix, and answers the queue and how to stop it.
func freshWorker(b *testing.B, bin, cfg, prefix string) (queue string, stop func()) {
	b.Helper()
	cfgPath := filepath.Join(b.TempDir(), prefix+".yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	queue = prefix + "-" + time.Now().Format("150405.000000")
	proc := startWorkerProcess(b, bin, cfgPath, queue)
	return queue, func() { _ = proc.Process.Kill(); _ = proc.Wait() }
}
