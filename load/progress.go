package load

import (
	"context"
	"fmt"
	"time"
)

// progressEvery is how often a progress line is printed and the task
// queue's backlog sampled.
const progressEvery = time.Second

// startProgress prints a progress line every second (when o.Progress is
// set) and samples the task queue's backlog for the report's peaks, until
// the stop function it returns is called.
func (l *loader) startProgress(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				b := l.sample(ctx)
				if l.o.Progress != nil {
					fmt.Fprintln(l.o.Progress, l.progressLine(b))
				}
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// sample reads the backlog and keeps its peaks. The first error is kept
// for the report and stops further samples (a server that refuses once
// refuses every time).
func (l *loader) sample(ctx context.Context) *backlog {
	l.mu.Lock()
	failedBefore := l.sampleErr != ""
	l.mu.Unlock()
	if failedBefore {
		return nil
	}
	b, err := sampleBacklog(ctx, l.c, l.o)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			l.sampleErr = err.Error()
		}
		return nil
	}
	l.peakBacklog.workflow = max(l.peakBacklog.workflow, b.workflow)
	l.peakBacklog.activity = max(l.peakBacklog.activity, b.activity)
	return &b
}

// progressLine is one line of progress: elapsed time, runs started (of
// all), completed, failed, in flight, completed runs per second so far and, when read,
// the task queue's backlog.
func (l *loader) progressLine(b *backlog) string {
	elapsed := time.Since(l.begin)
	started, completed, failed := l.started.Load(), l.completed.Load(), l.failed.Load()
	line := fmt.Sprintf("load: %5.0fs  started %d/%d  completed %d  failed %d  in flight %d  %.1f runs/s",
		elapsed.Seconds(), started, l.o.Runs, completed, failed, started-completed-failed,
		float64(completed)/elapsed.Seconds())
	if b != nil {
		line += fmt.Sprintf("  backlog: %d workflow, %d activity tasks", b.workflow, b.activity)
	}
	return line
}
