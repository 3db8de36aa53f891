package policies

import "github.com/unstuck-dev/unstuck/config"

// The ring of the last Window events, and what is derived from it.

// push puts event Seen into the ring, where it takes the slot of event
// Seen-Window (whose state sighting, if counted, is forgotten), and opens
// the next period to comparison once enough events exist. counted says
// whether the event's state sighting counts (the ring keeps only those).
func (d *LoopDetector) push(e LoopEvent, fp uint64, counted bool) {
	t, w := d.Seen, d.Window
	state := ""
	if counted {
		state = e.StateHash
	}
	d.LastState = e.StateHash
	if len(d.Sigs) < w {
		d.Sigs = append(d.Sigs, e.Signature)
		d.States = append(d.States, state)
		d.fps = append(d.fps, fp)
	} else {
		cur := t % w
		if old := d.States[cur]; old != "" && t-w >= d.Since {
			d.uncount(old)
		}
		d.Sigs[cur], d.States[cur], d.fps[cur] = e.Signature, state, fp
	}
	d.Seen++
	if len(d.Runs) < min(d.Seen, d.MaxPeriod()) {
		d.Runs = append(d.Runs, 0)
	}
}

// uncount forgets one counted sighting of the state h.
func (d *LoopDetector) uncount(h string) {
	if n := d.StateCounts[h]; n > 1 {
		d.StateCounts[h] = n - 1
	} else {
		delete(d.StateCounts, h)
	}
}

// last answers the signatures of the latest n events, oldest first.
func (d *LoopDetector) last(n int) []string {
	out := make([]string, n)
	for i := range n {
		out[i] = d.Sigs[(d.Seen-n+i)%d.Window]
	}
	return out
}

// sinceState is the distance from the previous counted sighting of the
// state h (inside the ring) to the latest event.
func (d *LoopDetector) sinceState(h string) int {
	latest := d.Seen - 1
	for i := latest - 1; i >= 0 && i > latest-d.Window; i-- {
		if d.States[i%d.Window] == h {
			return latest - i
		}
	}
	return 1 // not reached: a count of 2 or more means an earlier sighting
}

// normalise fills defaults and, should a decoded state not hold together
// (edited by hand, or from another version), starts afresh rather than
// panic inside workflow code.
func (d *LoopDetector) normalise() {
	if d.Window <= 0 {
		d.Window = config.DefaultLoopWindow
	}
	if d.Repeats <= 0 {
		d.Repeats = config.DefaultLoopRepeats
	}
	d.Repeats = max(d.Repeats, 2)
	d.Window = max(d.Window, d.Repeats)
	if d.Seen < 0 || d.Since < 0 || d.Since > d.Seen || d.Streak < 0 ||
		len(d.Sigs) != min(d.Seen, d.Window) || len(d.States) != len(d.Sigs) ||
		len(d.Runs) != min(d.Seen, d.MaxPeriod()) {
		*d = LoopDetector{Window: d.Window, Repeats: d.Repeats}
	}
	if len(d.fps) != len(d.Sigs) {
		d.fps = make([]uint64, len(d.Sigs), min(d.Window, max(len(d.Sigs), 64)))
		for i, s := range d.Sigs {
			d.fps[i] = fingerprint(s)
		}
	}
}

// fingerprint is FNV-1a: equal signatures have equal fingerprints, and
// unequal ones almost never do (a collision only costs a string compare).
func fingerprint(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := range len(s) {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Last answers the signatures of the latest n events the ring still
// holds (at most Window), oldest first: the cycle of a loop another rule
// found (the time window).
func (d *LoopDetector) Last(n int) []string {
	d.normalise()
	return d.last(max(min(n, len(d.Sigs)), 0))
}

// Restart starts a fresh count for every kind, as a report does: a loop
// another rule reported (the time window) was answered too.
func (d *LoopDetector) Restart() {
	d.normalise()
	d.reset()
}
