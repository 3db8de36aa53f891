package policies

import "time"

// An outage is not a loop: a call whose tool is down (every breaker on
// its way open) waits until the breaker lets a trial through, instead of
// failing and feeding the loop detector. These rules say when the next
// probe is and when the wait is over.

// outageSpread is the share of the cooldown over which parked calls
// spread their probes, so runs waiting out one outage do not all probe at
// the same moment.
const outageSpread = 4

// NextProbe is when a call waiting out b's outage tries again: when b's
// cooldown ends (it then lets a trial through), or, when it already has
// (another call of the run holds the trial), a spread's length from now;
// plus a jitter, the same for the same seed, of up to a quarter of the
// cooldown (at least a second).
func NextProbe(b Breaker, now time.Time, seed string) time.Time {
	spread := max(b.Cooldown/outageSpread, time.Second)
	at := b.OpenedAt.Add(b.Cooldown)
	if !at.After(now) {
		at = now.Add(spread)
	}
	// backoff.go's jitter, in [0.5, 1), stretched over [0, spread).
	return at.Add(time.Duration(float64(spread) * 2 * (jitter(seed, 0) - 0.5)))
}

// OutageWaited says whether a run that began waiting out an outage at
// since would have waited maxWait in all by its next probe (next): it
// waits no more, and the call fails as a refused one does (the ladder
// climbs).
func OutageWaited(since, next time.Time, maxWait time.Duration) bool {
	return next.After(since.Add(maxWait))
}

// OutageParks says whether a failed call of class waits out its tool's
// outage instead of failing: the worker's breaker refused it (it never
// reached the tool), or it failed transiently, and then only for a tool
// that may run again safely (a write that failed may have taken effect).
func OutageParks(class Class, workerRefused, write bool) bool {
	switch {
	case workerRefused:
		return true
	case class == Transient:
		return !write
	}
	return false
}
