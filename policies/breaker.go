package policies

import "time"

// The states of a Breaker.
const (
	// BreakerClosed: calls go through; failures in a row are counted.
	BreakerClosed = "closed"
	// BreakerOpen: calls are refused until the cooldown has passed.
	BreakerOpen = "open"
	// BreakerHalfOpen: one trial call decides between closed and open.
	BreakerHalfOpen = "half_open"
)

// Breaker is a tool's circuit breaker. A tool that keeps failing is not
// called again and again (the fallback is used, or the ladder climbs)
// until a cooldown has passed and a single trial call succeeds. Time is
// passed in (workflow.Now) and the state JSON round-trips, as it lives in
// the run state across continue-as-new.
type Breaker struct {
	State string `json:"state"`
	// Failures counts the tool's counted failures in a row.
	Failures int `json:"failures"`
	// OpenedAt is when the circuit last opened.
	OpenedAt time.Time `json:"opened_at,omitzero"`
	// Threshold is the number of failures in a row that opens it.
	Threshold int `json:"threshold"`
	// Cooldown is how long it stays open before a trial call.
	Cooldown time.Duration `json:"cooldown"`
	// Trial: in half_open, the trial call has been let through and its
	// result is awaited.
	Trial bool `json:"trial,omitempty"`
}

// NewBreaker builds a closed breaker that opens after `failures` failures
// in a row (at least 1) and half-opens after `cooldown`.
func NewBreaker(failures int, cooldown time.Duration) *Breaker {
	b := &Breaker{Threshold: failures, Cooldown: cooldown}
	b.normalise()
	return b
}

// Allow says whether a call may go to the tool now. It is the gate, not a
// question: an open breaker whose cooldown has passed half-opens and lets
// this one call through as its trial; until the trial's result is
// recorded, every other call is refused.
func (b *Breaker) Allow(now time.Time) bool {
	b.normalise()
	switch b.State {
	case BreakerOpen:
		if now.Sub(b.OpenedAt) < b.Cooldown {
			return false
		}
		b.State, b.Trial = BreakerHalfOpen, true
		return true
	case BreakerHalfOpen:
		if b.Trial {
			return false
		}
		b.Trial = true
		return true
	default:
		return true
	}
}

// Record takes the result of a call. Closed: a success clears the count,
// a failure adds to it and opens the circuit at the threshold. Half-open:
// the trial's success closes it, its failure opens it again for a new
// cooldown. Open: results of calls let through before it opened change
// nothing but the count; the cooldown and the trial decide.
func (b *Breaker) Record(now time.Time, ok bool) {
	b.normalise()
	switch {
	case b.State == BreakerHalfOpen && ok:
		b.State, b.Failures, b.Trial = BreakerClosed, 0, false
	case b.State == BreakerHalfOpen:
		b.Failures++
		b.open(now)
	case b.State == BreakerOpen:
		if !ok {
			b.Failures++
		}
	case ok:
		b.Failures = 0
	default:
		b.Failures++
		if b.Failures >= b.Threshold {
			b.open(now)
		}
	}
}

// RecordError takes a failed call of the given class. An invalid_args
// failure is not counted: bad arguments are the model's fault, not the
// tool's, and argument repair answers them, so they neither open the
// circuit nor clear the count of the tool's own failures. If the call was
// the half-open trial, it proved nothing and the next call is the trial.
func (b *Breaker) RecordError(now time.Time, class Class) {
	if class != InvalidArgs {
		b.Record(now, false)
		return
	}
	b.Release()
}

// Release takes a call let through that proved nothing either way (not
// made after all, or abandoned): if it was the half-open trial, the next
// call is the trial, so the breaker never waits for a result that will
// not come.
func (b *Breaker) Release() {
	b.normalise()
	if b.State == BreakerHalfOpen {
		b.Trial = false
	}
}

// Trip opens the circuit on purpose (the escalation ladder's substitute
// rung, when a loop is about this tool even without errors). The loop
// counts as one failure, so an open breaker always has failures.
func (b *Breaker) Trip(now time.Time) {
	b.normalise()
	b.Failures++
	b.open(now)
}

func (b *Breaker) open(now time.Time) {
	b.State, b.OpenedAt, b.Trial = BreakerOpen, now, false
}

// normalise makes a zero or hand-edited breaker valid: an unknown state is
// closed, the threshold at least 1, and a circuit that is not closed has
// failures.
func (b *Breaker) normalise() {
	switch b.State {
	case BreakerClosed:
		b.Trial = false
	case BreakerOpen, BreakerHalfOpen:
		b.Failures = max(b.Failures, 1)
	default:
		b.State, b.Trial = BreakerClosed, false
	}
	b.Threshold = max(b.Threshold, 1)
	b.Cooldown = max(b.Cooldown, 0)
	b.Failures = max(b.Failures, 0)
}
