package bench

import (
	"context"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/app/replay"
)

// replayRuns is how many histories BenchmarkReplay replays: a CI job
// replaying the last day's runs of a busy namespace.
const replayRuns = 1000

// BenchmarkReplay replays 1,000 histories (the supported releases'
// recorded histories, over and over) the way `unstuck replay FILES` does,
// GOMAXPROCS at once and one at a time, against the baseline a Temporal
// user writes from the SDK's docs: a worker.NewWorkflowReplayer per
// history (under its recorded workflow id, as forks need), one after
// another. The three alternate, so load on the machine falls on each.
func BenchmarkReplay(b *testing.B) {
	var dirs []string
	for _, release := range replay.Supported {
		dirs = append(dirs, filepath.Join("..", "testsuite", "histories", release))
	}
	recorded, err := replay.Files(dirs)
	if err != nil {
		b.Fatal(err)
	}
	sources := make([]replay.Source, 0, replayRuns)
	for len(sources) < replayRuns {
		sources = append(sources, recorded[:min(len(recorded), replayRuns-len(sources))]...)
	}
	var parallel, sequential, bare spent
	for b.Loop() {
		for range 2 {
			bare.add(func() { replayBare(b, sources) })
			sequential.add(func() { replayAll(b, sources, 1) })
			parallel.add(func() { replayAll(b, sources, runtime.GOMAXPROCS(0)) })
		}
	}
	runs := float64(2 * b.N * len(sources))
	b.ReportMetric(runs/parallel.wall.Seconds(), "runs/s")
	b.ReportMetric(runs/sequential.wall.Seconds(), "one-at-a-time-runs/s")
	b.ReportMetric(runs/bare.wall.Seconds(), "baseline-runs/s")
	// Per second of this process's CPU: what a machine of its own gets
	// per core, whatever else the shared machine runs.
	b.ReportMetric(runs/parallel.cpu.Seconds(), "runs/cpu-s")
	b.ReportMetric(runs/bare.cpu.Seconds(), "baseline-runs/cpu-s")
	b.ReportMetric(float64(len(recorded)), "distinct-histories")
}

// spent is the wall time and the process's CPU time (user and system)
// of what add ran.
type spent struct{ wall, cpu time.Duration }

func (s *spent) add(f func()) {
	cpu0, start := cpuTime(), time.Now()
	f()
	s.wall += time.Since(start)
	s.cpu += cpuTime() - cpu0
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// replayAll replays sources as `unstuck replay` does, parallel at once.
func replayAll(b *testing.B, sources []replay.Source, parallel int) {
	replay.All(context.Background(), sources, parallel, app.SilentLogger(), func(o replay.Outcome) {
		if o.Err != nil {
			b.Fatalf("%s: %s", o.Name, o.Why)
		}
	})
}

// replayBare is the baseline: the SDK's replayer, one history after another.
func replayBare(b *testing.B, sources []replay.Source) {
	for _, s := range sources {
		hist, err := s.Load(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		r := worker.NewWorkflowReplayer()
		app.RegisterWorkflow(r)
		var opts worker.ReplayWorkflowHistoryOptions
		opts.OriginalExecution.ID = hist.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowId()
		if err := r.ReplayWorkflowHistoryWithOptions(app.SilentLogger(), hist, opts); err != nil {
			b.Fatalf("%s: %v", s.Name, err)
		}
	}
}
