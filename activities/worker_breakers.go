package activities

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// CircuitOpenError is the application error type of a call the worker's
// breaker refused: the tool failed again and again, across the runs on
// this worker, and is left alone until its cooldown has passed. It is not
// retryable; the run's own breaker opens on it (so the decision is in the
// run's history and replays).
const CircuitOpenError = "CircuitOpen"

// workerBreakers are the tools' breakers of one worker process, shared by
// every run it serves: a hundred runs on a dead tool trip one breaker, and
// the tool gets a bounded number of calls, not a hundred times one run's.
// A flaky tool is not a dead one: a tool that answered one of its last
// policies.FleetWindow calls is left to each run's own breaker
// (policies.FleetBreaker). A tool that comes back is let through in a
// ramp: one trial, then more as they succeed (policies.RampBreaker).
// Each worker bounds its own calls; N workers send at most N times the
// breaker's calls (each trips and ramps on its own).
type workerBreakers struct {
	mu     sync.Mutex
	byTool map[string]*policies.FleetBreaker
	// policy of each tool: the strictest of the agents that may call it.
	policy map[string]config.BreakerPolicy
	// ramp of each tool: where its recovery's ramp ends
	// (policies.RampBound of its max_concurrent).
	ramp map[string]int
	// rampWait: how long a call the ramp has no room for waits for a place;
	// waiting: the calls of each tool that wait for one.
	rampWait time.Duration
	waiting  map[string]int
	// moved is closed, and replaced, whenever a call's outcome is taken: a
	// call waiting for a place in a ramp looks again.
	moved chan struct{}
}

// rampWait bounds how long a call the ramp has no room for waits on the
// worker for a place before it is refused. The ramp makes room as its
// trials are answered, within a fraction of a second from a service that
// is back, while a refused call's run waits out a whole cooldown again.
// It stays well inside the 5 s a tool's activity has beyond the tool's
// own timeout (workflows' toolOptions), so the call keeps its timeout.
const rampWait = 2 * time.Second

// newWorkerBreakers takes, for each tool, the fewest failures and the
// longest cooldown of the agents whose tools (or their fallbacks) name it.
func newWorkerBreakers(cfg *config.File) *workerBreakers {
	w := &workerBreakers{byTool: map[string]*policies.FleetBreaker{}, policy: map[string]config.BreakerPolicy{}, ramp: map[string]int{},
		rampWait: rampWait, waiting: map[string]int{}, moved: make(chan struct{})}
	if cfg == nil {
		return w
	}
	for _, a := range cfg.Agents {
		resolved, err := cfg.Resolve(a.Name, func(string) (string, bool) { return "", false })
		if err != nil {
			continue
		}
		for _, t := range resolved.Tools {
			p, seen := w.policy[t.Name]
			b := a.Policies.Breaker
			if !seen || (b.Failures > 0 && b.Failures < p.Failures) {
				p.Failures = b.Failures
			}
			p.Cooldown = max(p.Cooldown, b.Cooldown)
			w.policy[t.Name] = p
			w.ramp[t.Name] = policies.RampBound(t.MaxConcurrent)
		}
	}
	return w
}

// allow is the gate before a call, at now: nil, or the refusal while the
// tool's breaker is open (an open breaker past its cooldown lets one
// trial through, then more as they succeed). While it ramps with as many
// trials in flight as it lets through, the call waits for a place
// (waitForPlace). A refusal is a CircuitOpen either way: the run waits
// the outage out.
func (w *workerBreakers) allow(ctx context.Context, tool string, now time.Time) error {
	if w == nil {
		return nil // an activity set built without New (tests)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.breaker(tool)
	if b.Allow(now) {
		return nil
	}
	if b.State != policies.BreakerHalfOpen || w.waiting[tool] >= b.Bound || w.rampWait <= 0 {
		return w.refusal(tool, b, 0)
	}
	return w.waitForPlace(ctx, tool, b, now)
}

// waitForPlace waits for a place in b's ramp: until a trial's outcome
// makes one, for at most rampWait, or until ctx ends; it answers nil once
// the call has its place, else the refusal. Called with w.mu held, it
// lets go of it while it waits. At most b.Bound
// calls wait: those the ramp lets through before it closes; more would
// all go together when it closes, the stampede the ramp is for.
func (w *workerBreakers) waitForPlace(ctx context.Context, tool string, b *policies.FleetBreaker, now time.Time) error {
	start := time.Now()
	w.waiting[tool]++
	defer func() { w.waiting[tool]-- }()
	timer := time.NewTimer(w.rampWait)
	defer timer.Stop()
	for {
		moved := w.moved
		w.mu.Unlock()
		select {
		case <-moved:
		case <-timer.C:
		case <-ctx.Done():
		}
		w.mu.Lock()
		switch {
		case ctx.Err() != nil:
			return w.refusal(tool, b, time.Since(start))
		case b.Allow(now.Add(time.Since(start))):
			return nil
		case b.State != policies.BreakerHalfOpen, time.Since(start) >= w.rampWait:
			return w.refusal(tool, b, time.Since(start))
		}
	}
}

// refusal is the error of a call tool's breaker b refused, after waiting
// for a place in its ramp for `waited`.
func (w *workerBreakers) refusal(tool string, b *policies.FleetBreaker, waited time.Duration) error {
	msg := fmt.Sprintf("circuit open on this worker: tool %s failed %d times in a row across runs; it is left alone until %s",
		tool, b.Failures, b.OpenedAt.Add(b.Cooldown).UTC().Format(time.RFC3339))
	if b.State == policies.BreakerHalfOpen {
		msg = fmt.Sprintf("circuit half open on this worker: tool %s is coming back, and %s", tool, rampSaid(b.RampBreaker))
	}
	if waited > 0 {
		msg += fmt.Sprintf("; no place came in %s", waited.Round(time.Millisecond))
	}
	return temporal.NewNonRetryableApplicationError(msg, CircuitOpenError, nil)
}

// rampSaid says where a ramping breaker stands.
func rampSaid(b policies.RampBreaker) string {
	return fmt.Sprintf("its %d in flight are as many as its recovery lets through now (%d answered since it came back; all go through once %d may)",
		b.Trials, b.Passed, b.Bound)
}

// record takes a call's outcome: a success counts for the tool (it
// closes the breaker, or moves its ramp on), a failure of the tool (not
// of its arguments) against it.
func (w *workerBreakers) record(tool string, now time.Time, class policies.Class, ok bool) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	defer w.move()
	b := w.breaker(tool)
	switch {
	case ok:
		b.Record(now, true)
	case class == policies.Canceled:
		// Nothing was learnt of the tool: a trial call gives its place up.
		b.Release()
	default:
		b.RecordError(now, class)
	}
}

// outcomeClass is how a call ended, for the worker's breaker.
func outcomeClass(ctx context.Context, err error) policies.Class {
	var app *temporal.ApplicationError
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return policies.Canceled
	case errors.As(err, &app):
		return policies.Class(app.Type())
	}
	return policies.Transient
}

func (w *workerBreakers) breaker(tool string) *policies.FleetBreaker {
	b, ok := w.byTool[tool]
	if !ok {
		p := w.policy[tool]
		failures, cooldown := p.Failures, p.Cooldown.D()
		if failures <= 0 {
			failures = config.DefaultFailures
		}
		if cooldown <= 0 {
			cooldown = config.DefaultCooldown.D()
		}
		b = policies.NewFleetBreaker(failures, cooldown, w.rampOf(tool))
		w.byTool[tool] = b
	}
	return b
}

// rampOf is where the ramp of tool's breaker ends: a tool no agent of
// the config names (a test's) has the default.
func (w *workerBreakers) rampOf(tool string) int {
	if n, ok := w.ramp[tool]; ok {
		return n
	}
	return policies.RampBound(0)
}

// move wakes the calls waiting for a place in a ramp (under w.mu).
func (w *workerBreakers) move() {
	if w.moved != nil {
		close(w.moved)
	}
	w.moved = make(chan struct{})
}
