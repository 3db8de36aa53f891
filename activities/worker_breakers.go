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
// (policies.FleetBreaker). Each worker bounds its own calls; N workers
// send at most N times the breaker's calls (each trips on its own).
type workerBreakers struct {
	mu     sync.Mutex
	byTool map[string]*policies.FleetBreaker
	// policy of each tool: the strictest of the agents that may call it.
	policy map[string]config.BreakerPolicy
}

// newWorkerBreakers takes, for each tool, the fewest failures and the
// longest cooldown of the agents whose tools (or their fallbacks) name it.
func newWorkerBreakers(cfg *config.File) *workerBreakers {
	w := &workerBreakers{byTool: map[string]*policies.FleetBreaker{}, policy: map[string]config.BreakerPolicy{}}
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
		}
	}
	return w
}

// allow is the gate before a call: nil, or the refusal while the tool's
// breaker is open (an open breaker past its cooldown lets one trial call
// through, as a run's does).
func (w *workerBreakers) allow(tool string, now time.Time) error {
	if w == nil {
		return nil // an activity set built without New (tests)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.breaker(tool)
	if b.Allow(now) {
		return nil
	}
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(
		"circuit open on this worker: tool %s failed %d times in a row across runs; it is left alone until %s",
		tool, b.Failures, b.OpenedAt.Add(b.Cooldown).UTC().Format(time.RFC3339)), CircuitOpenError, nil)
}

// record takes a call's outcome: a success closes the breaker, a failure
// of the tool (not of its arguments) counts towards opening it.
func (w *workerBreakers) record(tool string, now time.Time, class policies.Class, ok bool) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.breaker(tool)
	switch {
	case ok:
		b.Record(now, true)
	case class == policies.Canceled:
		// Nothing was learnt of the tool: a trial call gives its turn up.
		if b.State == policies.BreakerHalfOpen {
			b.Trial = false
		}
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
		b = policies.NewFleetBreaker(failures, cooldown)
		w.byTool[tool] = b
	}
	return b
}
