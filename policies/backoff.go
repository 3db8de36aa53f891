package policies

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"strconv"
	"time"
)

// Backoff is the wait before retry number `attempt` (1 is the first): the
// initial delay times factor^(attempt-1) (factor below 1 counts as 1),
// capped at maxDelay (0: no cap), then scaled by a jitter in [0.5, 1.0].
// The jitter spreads the retries of many runs hitting the same tool; it
// comes from a hash of seed and attempt (the workflow id, say), not from
// math/rand, so a replay waits exactly as long as the original run did.
func Backoff(attempt int, initial, maxDelay time.Duration, factor float64, seed string) time.Duration {
	if initial <= 0 {
		return 0
	}
	if maxDelay > 0 && maxDelay < initial {
		maxDelay = initial
	}
	if maxDelay <= 0 {
		maxDelay = math.MaxInt64
	}
	if !(factor >= 1) { // also NaN
		factor = 1
	}
	attempt = min(max(attempt, 1), 1<<20) // factor^(2^20) is +Inf already
	d := maxDelay
	if f := float64(initial) * math.Pow(factor, float64(attempt-1)); f < float64(maxDelay) {
		d = time.Duration(f)
	}
	j := float64(d) * jitter(seed, attempt)
	if j >= float64(d) { // rounding: never above the capped delay
		return d
	}
	return time.Duration(j)
}

// jitter is a number in [0.5, 1.0) from a hash of seed and attempt.
func jitter(seed string, attempt int) float64 {
	h := sha256.Sum256([]byte(seed + "\x00" + strconv.Itoa(attempt)))
	u := binary.BigEndian.Uint64(h[:8]) >> 11 // 53 bits: exact in a float64
	return 0.5 + 0.5*float64(u)/(1<<53)
}
