package policies

import "time"

// RampBreaker is a breaker of a worker process, shared by the runs it
// serves (a tool's, a model endpoint's). It opens as a run's Breaker
// does, but it recovers in a ramp, not in one step: half-open, it lets
// through trials in flight up to a limit that starts at 1 and grows by 1
// with each success (slow start: each trial that succeeds lets two more
// through, so the limit doubles with each round of trials), and closes
// once the limit reaches Bound. The first trial's failure opens it again
// for a new cooldown; once a trial succeeded, the service answers (flaky,
// not dead: FleetBreaker's rule), and only Bound failures in a row open
// it again, so a flaky tool is not kept out by its failures. Runs waiting out an outage wake spread over a
// window (NextProbe); the ramp keeps those that wake together from all
// reaching a service the moment it answers one call.
//
// It is not a run's Breaker, which lives in the run's state and replays
// with its history: this one lives in the worker's memory, so its rules
// may change from one release to the next.
type RampBreaker struct {
	State string
	// Failures counts the failures in a row.
	Failures int
	// OpenedAt is when the circuit last opened.
	OpenedAt time.Time
	// Threshold is the failures in a row that open it.
	Threshold int
	// Cooldown is how long it stays open before the ramp's first trial.
	Cooldown time.Duration
	// Bound is the limit at which the ramp ends: the circuit closes.
	Bound int
	// Trials: half-open, the calls let through whose outcome is awaited.
	Trials int
	// Passed: half-open, the trials that succeeded since the ramp began.
	Passed int
}

// RampBound is the bound of a worker's breaker's ramp, for calls that at
// most maxConcurrent run at once on the worker (0: no such bound).
//
// Why FleetWindow by default: the ramp and the flaky-or-dead rule bound
// the same thing, the calls a worker sends a service that may not be
// back. A worker's tool breaker, closed after the tool answered lately,
// opens again only after FleetWindow failures in a row; a ramp past that
// would guard the service more closely than the closed breaker guards it
// the next moment. At the bound, the service has also answered
// FleetWindow-1 trials in a row since it came back. A tool whose calls
// max_concurrent bounds lower never has more in flight on the worker, so
// its ramp ends there: past it the ramp would let nothing more through.
func RampBound(maxConcurrent int) int {
	if maxConcurrent > 0 {
		return min(maxConcurrent, FleetWindow)
	}
	return FleetWindow
}

// NewRampBreaker builds a closed breaker that opens after `failures`
// failures in a row (at least 1), ramps after `cooldown`, and closes once
// `bound` trials may be in flight (at least 1: one trial's success closes
// it, as a run's Breaker's does).
func NewRampBreaker(failures int, cooldown time.Duration, bound int) *RampBreaker {
	r := &RampBreaker{Threshold: failures, Cooldown: cooldown, Bound: bound}
	r.normalise()
	return r
}

// Limit is how many trials may be in flight while it ramps.
func (r *RampBreaker) Limit() int {
	return min(1+r.Passed, max(r.Bound, 1))
}

// Allow says whether a call may go now, and counts it if it may: an open
// breaker whose cooldown has passed begins the ramp with this call as its
// first trial; ramping, a call goes while fewer than Limit trials are in
// flight.
func (r *RampBreaker) Allow(now time.Time) bool {
	r.normalise()
	switch r.State {
	case BreakerOpen:
		if now.Sub(r.OpenedAt) < r.Cooldown {
			return false
		}
		r.State, r.Trials, r.Passed = BreakerHalfOpen, 1, 0
		return true
	case BreakerHalfOpen:
		if r.Trials >= r.Limit() {
			return false
		}
		r.Trials++
		return true
	default:
		return true
	}
}

// Record takes the result of a call. Closed: a success clears the count,
// a failure adds to it and opens the circuit at the threshold. Ramping: a
// success raises the limit, and closes the circuit once it reaches the
// bound; the first trial's failure opens it again for a new cooldown, a
// later one only after Bound failures in a row. Open: a failure
// adds to the count; a success (a call let through before it opened) says
// the service answers, and the ramp begins with it, as if it were the
// first trial.
func (r *RampBreaker) Record(now time.Time, ok bool) {
	r.normalise()
	switch {
	case r.State == BreakerClosed && ok:
		r.Failures = 0
	case r.State == BreakerClosed:
		r.Failures++
		if r.Failures >= r.Threshold {
			r.open(now)
		}
	case ok:
		r.State, r.Failures = BreakerHalfOpen, 0
		r.Trials = max(r.Trials-1, 0)
		r.Passed++
		if r.Limit() >= max(r.Bound, 1) {
			r.close()
		}
	case r.State == BreakerHalfOpen && r.Passed == 0:
		r.Failures++
		r.open(now) // the first trial failed: the service is not back
	case r.State == BreakerHalfOpen:
		// It answered since the cooldown: flaky, not dead (FleetBreaker's
		// rule). The ramp goes on; only as long a run of failures as the
		// ramp's bound opens it again.
		r.Failures++
		r.Trials = max(r.Trials-1, 0)
		if r.Failures >= max(r.Bound, r.Threshold) {
			r.open(now)
		}
	default:
		r.Failures++
	}
}

// RecordError takes a failed call of the given class: an invalid_args
// failure is the model's, not the service's (Breaker.RecordError), and
// only gives up the trial's place.
func (r *RampBreaker) RecordError(now time.Time, class Class) {
	if class == InvalidArgs {
		r.Release()
		return
	}
	r.Record(now, false)
}

// Release takes a call let through that proved nothing either way (not
// made after all, or abandoned): ramping, it gives its place up, so the
// breaker never waits for a result that will not come.
func (r *RampBreaker) Release() {
	r.normalise()
	if r.State == BreakerHalfOpen {
		r.Trials = max(r.Trials-1, 0)
	}
}

func (r *RampBreaker) open(now time.Time) {
	r.State, r.OpenedAt, r.Trials, r.Passed = BreakerOpen, now, 0, 0
}

func (r *RampBreaker) close() {
	r.State, r.Failures, r.Trials, r.Passed = BreakerClosed, 0, 0, 0
}

// normalise makes a zero breaker valid: an unknown state is closed, the
// threshold and the bound at least 1, and a circuit that is open has
// failures.
func (r *RampBreaker) normalise() {
	switch r.State {
	case BreakerOpen:
		r.Failures = max(r.Failures, 1)
	case BreakerHalfOpen:
	default:
		r.State = BreakerClosed
	}
	if r.State != BreakerHalfOpen {
		r.Trials, r.Passed = 0, 0
	}
	r.Threshold = max(r.Threshold, 1)
	r.Bound = max(r.Bound, 1)
	r.Cooldown = max(r.Cooldown, 0)
	r.Failures = max(r.Failures, 0)
	r.Trials = max(r.Trials, 0)
	r.Passed = max(r.Passed, 0)
}
