package policies

// State recurrence: which sightings of a state count. A state counts at
// its first sighting in the window since the last report, and again each
// time the run comes back to it from another state with nothing new: the
// event that brought it back has a signature already seen in the window
// since the last report. Staying in one state counts nothing (a run
// whose State only changes when it succeeds, like the seed graph's while
// its tool fails, is left to the cycle and no-progress kinds), and
// coming back by a new call is progress.

// countsState says whether the event's state sighting counts. It reads
// the ring before the event is pushed; it changes nothing.
func (d *LoopDetector) countsState(e LoopEvent, fp uint64) bool {
	h := e.StateHash
	switch {
	case h == "":
		return false
	case d.staying(h) == 0:
		return true // the first sighting since the last report
	case h == d.LastState:
		return false // staying, not coming back
	default:
		return d.seenSince(e.Signature, fp)
	}
}

// seenSince says whether sig is the signature of an event of the window
// (the latest Window-1, the new one being the Window-th) since Since.
func (d *LoopDetector) seenSince(sig string, fp uint64) bool {
	for k := d.Seen - 1; k >= d.Since && k > d.Seen-d.Window; k-- {
		i := k % d.Window
		if d.fps[i] == fp && d.Sigs[i] == sig {
			return true
		}
	}
	return false
}

// StateLoopAt says whether observing e would complete a state loop
// (whatever else it completes), without observing it: the workflow asks
// version state-hash only then, and runs from before it observe e
// without its hash.
func (d *LoopDetector) StateLoopAt(e LoopEvent) bool {
	d.normalise()
	fp := fingerprint(e.Signature)
	return d.countsState(e, fp) && d.staying(e.StateHash)+1 >= d.Repeats
}

// staying is the number of counted sightings of h that stay in the window
// when the next event is pushed: all but the one of the event it evicts.
func (d *LoopDetector) staying(h string) int {
	n := d.StateCounts[h]
	if t, w := d.Seen, d.Window; n > 0 && len(d.States) == w && t-w >= d.Since && d.States[t%w] == h {
		n--
	}
	return n
}

// StateHash is the hash of a run's State (its JSON) for LoopEvent: the
// canonical JSON without the DefaultVolatile fields, at any depth, so a
// clock or a request id a tool returned does not make a state new.
func StateHash(state []byte) string {
	return Signature("state", canonicalArgs(state, DefaultVolatile))
}
