package policies

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// The brute-force reference the detector is checked against: it keeps the
// whole history and rescans it after every event, straight from the
// definitions of LoopDetector, with none of its bookkeeping.

// periodicSuffix answers the smallest period p <= maxP such that the last
// p*repeats signatures of h are one block of p repeated, all at index
// since or later; 0 if there is none.
func periodicSuffix(h []string, since, maxP, repeats int) int {
	t := len(h) - 1
	for p := 1; p <= maxP; p++ {
		start := t - p*repeats + 1
		if start < since || start < 0 {
			continue
		}
		ok := true
		for k := start + p; k <= t && ok; k++ {
			ok = h[k] == h[k-p]
		}
		if ok {
			return p
		}
	}
	return 0
}

// refDetector is the reference model of LoopDetector.
type refDetector struct {
	window, repeats int
	events          []LoopEvent
	sigs            []string
	counted         []bool // whether each event's state sighting counts
	since           int
}

func newRefDetector(window, repeats int) *refDetector {
	d := NewLoopDetector(window, repeats) // the same normalised limits
	return &refDetector{window: d.Window, repeats: d.Repeats}
}

func (m *refDetector) observe(e LoopEvent) *Loop {
	m.events = append(m.events, e)
	m.sigs = append(m.sigs, e.Signature)
	t, r := len(m.events)-1, m.repeats
	m.counted = append(m.counted, m.counts(t))
	var loop *Loop
	if m.noProgress(t) {
		loop = &Loop{Kind: LoopNoProgress, Period: 1, Cycle: []string{e.Signature}, Key: e.Key, Class: e.Class}
	} else if p := periodicSuffix(m.sigs, m.since, m.window/r, r); p > 0 {
		loop = &Loop{Kind: LoopCycle, Period: p, Cycle: append([]string{}, m.sigs[t-p+1:]...)}
	} else if prev, n := m.stateSightings(t); n >= r {
		p := t - prev
		loop = &Loop{Kind: LoopState, Period: p, Cycle: append([]string{}, m.sigs[t-p+1:]...), StateHash: e.StateHash}
	}
	if loop != nil {
		loop.Repeats, loop.At = r, t
		m.since = t + 1
	}
	return loop
}

func (m *refDetector) noProgress(t int) bool {
	start := t - m.repeats + 1
	if start < m.since || start < 0 {
		return false
	}
	last := m.events[t]
	for _, e := range m.events[start:] {
		if !e.Failed || e.Key == "" || e.Key != last.Key || e.Class != last.Class {
			return false
		}
	}
	return true
}

// counts says whether event t's state sighting counts: its state is not
// among the counted sightings of the window since the last report, or
// the previous event's state was another and event t's signature is in
// the window since the last report.
func (m *refDetector) counts(t int) bool {
	h := m.events[t].StateHash
	if h == "" {
		return false
	}
	first, seen := true, false
	for k := t - 1; k >= max(m.since, t-m.window+1); k-- {
		if m.counted[k] && m.events[k].StateHash == h {
			first = false
		}
		if m.sigs[k] == m.sigs[t] {
			seen = true
		}
	}
	if first {
		return true
	}
	return t > 0 && m.events[t-1].StateHash != h && seen
}

// stateSightings counts the counted sightings of the latest event's state
// in the window since the last report, and finds the one before the
// latest.
func (m *refDetector) stateSightings(t int) (prev, n int) {
	h := m.events[t].StateHash
	if h == "" || !m.counted[t] {
		return 0, 0
	}
	prev = -1
	for k := t; k >= max(m.since, t-m.window+1); k-- {
		if m.counted[k] && m.events[k].StateHash == h {
			n++
			if k < t && prev < 0 {
				prev = k
			}
		}
	}
	return prev, n
}

// sigEvents are events with only a signature.
func sigEvents(sigs ...string) []LoopEvent {
	out := make([]LoopEvent, len(sigs))
	for i, s := range sigs {
		out[i] = LoopEvent{Signature: s}
	}
	return out
}

// detections feeds events to d and answers every report.
func detections(d *LoopDetector, events []LoopEvent) []Loop {
	var out []Loop
	for _, e := range events {
		if l := d.Observe(e); l != nil {
			out = append(out, *l)
		}
	}
	return out
}

// roundTrip is d after a JSON round trip, as across continue-as-new.
func roundTrip(t testing.TB, d *LoopDetector) *LoopDetector {
	t.Helper()
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	var back LoopDetector
	require.NoError(t, json.Unmarshal(raw, &back))
	return &back
}

// symbol is signature k of a small alphabet, shaped like a real one.
func symbol(k int) string {
	if k < len(symbols) {
		return symbols[k]
	}
	return Signature("tool", strconv.Itoa(k))
}

// symbols are the first signatures, hashed once: the generators draw
// millions.
var symbols = func() []string {
	out := make([]string, 64)
	for k := range out {
		out[k] = Signature("tool", strconv.Itoa(k))
	}
	return out
}()

// loopFreeAppend appends n random symbols to h, each chosen so that no
// periodic suffix of `repeats` repetitions (period up to maxP) appears;
// brute force, so independent of the detector.
func loopFreeAppend(rng *rand.Rand, h []string, n, alphabet, maxP, repeats int) []string {
	for range n {
		for try := 0; ; try++ {
			s := symbol(rng.IntN(alphabet))
			if try > 100 {
				s = symbol(alphabet + len(h)) // a fresh symbol never repeats
			}
			h = append(h, s)
			if periodicSuffix(h, 0, maxP, repeats) == 0 {
				break
			}
			h = h[:len(h)-1]
		}
	}
	return h
}

// firstPeriodic answers the first index from `from` on at which h has a
// periodic suffix, and its period; -1 if never.
func firstPeriodic(h []string, from, maxP, repeats int) (at, period int) {
	for t := from; t < len(h); t++ {
		if p := periodicSuffix(h[:t+1], 0, maxP, repeats); p > 0 {
			return t, p
		}
	}
	return -1, 0
}
