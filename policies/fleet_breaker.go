package policies

import "time"

// FleetWindow is how far back a worker's breaker of a tool looks for a
// success: a tool that answered one of its last FleetWindow calls on the
// worker is flaky, not dead, and is left to each run's own breaker.
//
// Why 32: a run's breaker opens after `failures` (default 5) failures in
// a row of its own calls. The worker sees the calls of every run, so a
// tool failing 60% of the time gives it five failures in a row every few
// dozen calls (0.6^5 = 7.8% at each call), and opening on them cut the
// tool off for every run although none of them had seen five in a row.
// Thirty-two in a row from a tool that answers 40% of its calls happen
// once in 10^7 calls (0.6^32 = 8e-8).
const FleetWindow = 32

// FleetBreaker is a tool's breaker shared by the runs of one worker
// process. It is a RampBreaker whose circuit opens, closed, only when the
// tool's last Threshold calls failed and none of its last FleetWindow
// calls succeeded (of fewer, while the worker has made fewer):
//   - a tool dead from the start is cut after Threshold calls, as one
//     run's breaker would, however many runs call it at once (a hundred
//     runs on a dead tool cost Threshold calls, not a hundred times);
//   - a tool that answered a call lately must fail FleetWindow times in a
//     row before the worker cuts it for every run; until then each run's
//     own breaker decides for that run.
//
// It recovers in a ramp (RampBreaker): a trial's failure opens it again,
// its successes let more calls through until the ramp ends and it closes.
type FleetBreaker struct {
	RampBreaker
	// Seen counts the calls whose outcome the breaker took (successes and
	// counted failures), up to FleetWindow.
	Seen int
}

// NewFleetBreaker builds a closed fleet breaker whose ramp ends at bound
// (RampBound).
func NewFleetBreaker(failures int, cooldown time.Duration, bound int) *FleetBreaker {
	return &FleetBreaker{RampBreaker: *NewRampBreaker(failures, cooldown, bound)}
}

// Record takes the result of a call (see RampBreaker.Record); closed, a
// failure opens the circuit only by the rule above.
func (f *FleetBreaker) Record(now time.Time, ok bool) {
	f.normalise()
	f.Seen = min(max(f.Seen, 0)+1, FleetWindow)
	if ok || f.State != BreakerClosed {
		f.RampBreaker.Record(now, ok)
		return
	}
	f.Failures++
	if f.Failures >= f.Threshold && f.Failures >= f.Seen {
		f.open(now)
	}
}

// RecordError takes a failed call of the given class: an invalid_args
// failure is not the tool's and is not counted (RampBreaker.RecordError).
func (f *FleetBreaker) RecordError(now time.Time, class Class) {
	if class == InvalidArgs {
		f.Release()
		return
	}
	f.Record(now, false)
}
