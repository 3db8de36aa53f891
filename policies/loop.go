package policies

// The kinds of Loop.
const (
	// LoopCycle: the same sequence of event signatures, repeated.
	LoopCycle = "cycle"
	// LoopNoProgress: the same call failing the same way, again and again,
	// even when its outcome text varies.
	LoopNoProgress = "no_progress"
	// LoopState: the run keeps coming back to the same state with nothing
	// new to show for it.
	LoopState = "state"
)

// LoopEvent is one thing the agent did, as the detector sees it.
type LoopEvent struct {
	// Signature is the event's identity including its outcome (for
	// example CanonicalSignature of node, tool, arguments and class):
	// cycles are repetitions of signatures.
	Signature string `json:"signature"`
	// Key is the call's identity without the outcome, for no-progress;
	// empty for events that are not calls.
	Key string `json:"key,omitempty"`
	// Failed and Class say how the call ended.
	Failed bool   `json:"failed,omitempty"`
	Class  string `json:"class,omitempty"`
	// StateHash identifies the run state after the event (StateHash of the
	// canonical State); empty: unknown.
	StateHash string `json:"state_hash,omitempty"`
}

// Loop is what the detector reports, at the event that completes it.
type Loop struct {
	Kind string `json:"kind"`
	// Period is the number of events of one repetition: the cycle's length,
	// 1 for no-progress, for a state the events since its last sighting.
	Period int `json:"period"`
	// Cycle holds the signatures of one period, oldest first.
	Cycle []string `json:"cycle"`
	// Repeats is how many repetitions made the report (the detector's
	// repeats: a report needs that many since the previous one).
	Repeats int `json:"repeats"`
	// At is the index of the event that completed the loop (0 is the
	// first event the detector observed).
	At int `json:"at"`
	// Key and Class: the failing call of a no-progress loop.
	Key   string `json:"key,omitempty"`
	Class string `json:"class,omitempty"`
	// StateHash: the recurring state of a state loop.
	StateHash string `json:"state_hash,omitempty"`
}

// LoopDetector finds loops in a stream of events in O(window/repeats)
// time per event and O(window) memory. It lives in the run state across
// continue-as-new, so every field is exported and JSON round-trips; it
// reads no clock and ranges over no map, so the workflow may call it.
//
// Cycles: for each period p up to Window/Repeats it keeps Runs[p-1], the
// number of consecutive latest events e[t] with e[t] == e[t-p]. The last
// p*Repeats events are the same p signatures Repeats times exactly when
// that count reaches p*(Repeats-1), so a loop is seen at the very event
// that completes its last repetition, without rescanning the history.
type LoopDetector struct {
	Window  int `json:"window"`
	Repeats int `json:"repeats"`
	// Seen is the number of events observed: the index of the next one.
	Seen int `json:"seen"`
	// Since is the first event index a report may include. A report moves
	// it past the reported event: the same loop is reported again only
	// after Repeats more full repetitions, which gives the escalation that
	// answered it room to work before the next rung is taken.
	Since int `json:"since"`
	// Sigs and States are rings of the last Window signatures and counted
	// state sightings (event t in slot t%Window, "" when its state was not
	// counted); they grow up to Window.
	Sigs   []string `json:"sigs,omitempty"`
	States []string `json:"states,omitempty"`
	// LastState is the state hash of the latest event, counted or not: a
	// state is come back to only from another.
	LastState string `json:"last_state,omitempty"`
	// Runs has one counter per period 1..min(Seen, Window/Repeats).
	Runs []int `json:"runs,omitempty"`
	// StateCounts counts the counted state sightings of the ring at or
	// after Since; read and written by key only.
	StateCounts map[string]int `json:"state_counts,omitempty"`
	// The current run of failures of one call with one class.
	Streak      int    `json:"streak,omitempty"`
	StreakKey   string `json:"streak_key,omitempty"`
	StreakClass string `json:"streak_class,omitempty"`

	// fps caches a fingerprint of each signature of the ring, so the
	// per-period comparisons are of integers (a string comparison is a
	// call). Derived from Sigs, so not serialised: rebuilt after decoding.
	fps []uint64
}

// NewLoopDetector builds a detector for the loop policy: a cycle repeated
// `repeats` times inside `window` events is a loop. Config validation
// refuses bad values; here 0 means the default, repeats is at least 2
// (one pass is not a loop) and window at least repeats, so the detector
// never panics whatever it is given.
func NewLoopDetector(window, repeats int) *LoopDetector {
	d := &LoopDetector{Window: window, Repeats: repeats}
	d.normalise()
	return d
}

// MaxPeriod is the longest cycle the detector can see: Repeats
// repetitions of it must fit in the window.
func (d *LoopDetector) MaxPeriod() int { return d.Window / d.Repeats }

// Observe takes the next event and answers the loop it completes, or nil.
// When several kinds complete at once it reports one, in the order
// no-progress (the most specific: it names the failing call), cycle,
// state; any report resets all three.
func (d *LoopDetector) Observe(e LoopEvent) *Loop {
	d.normalise()
	t, r := d.Seen, d.Repeats
	fp := fingerprint(e.Signature)
	counted := d.countsState(e, fp)
	period := d.cycle(e.Signature, fp)
	d.push(e, fp, counted)
	streak := d.streak(e)
	stateSeen := 0
	if counted {
		stateSeen = d.countState(e.StateHash)
	}

	var loop *Loop
	switch {
	case streak >= r:
		loop = &Loop{Kind: LoopNoProgress, Period: 1, Cycle: d.last(1), Key: e.Key, Class: e.Class}
	case period > 0:
		loop = &Loop{Kind: LoopCycle, Period: period, Cycle: d.last(period)}
	case stateSeen >= r:
		p := d.sinceState(e.StateHash)
		loop = &Loop{Kind: LoopState, Period: p, Cycle: d.last(p), StateHash: e.StateHash}
	default:
		return nil
	}
	loop.Repeats, loop.At = r, t
	d.reset()
	return loop
}

// cycle compares the new signature with the one p events back, for every
// period, and answers the smallest period that has now repeated Repeats
// times after Since (0: none). This loop is the detector's whole cost.
func (d *LoopDetector) cycle(sig string, fp uint64) int {
	t, w, r := d.Seen, d.Window, d.Repeats
	cur := t % w
	period, need := 0, 0 // need: p*(r-1) matches in a row make a loop
	runs, sigs, fps := d.Runs, d.Sigs, d.fps
	for p := 1; p <= len(runs); p++ {
		need += r - 1
		back := cur - p
		if back < 0 {
			back += w
		}
		if fps[back] == fp && sigs[back] == sig {
			runs[p-1]++
		} else {
			runs[p-1] = 0
		}
		if period == 0 && runs[p-1] >= need && t-need-p+1 >= d.Since {
			period = p
		}
	}
	return period
}

// streak counts the failures in a row of one call with one class. A
// no-op starts at 2: it repeats the call before it, which did as little.
func (d *LoopDetector) streak(e LoopEvent) int {
	switch {
	case !e.Failed || e.Key == "":
		d.Streak, d.StreakKey, d.StreakClass = 0, "", ""
	case d.Streak > 0 && e.Key == d.StreakKey && e.Class == d.StreakClass:
		d.Streak++
	case e.Class == string(NoOp):
		d.Streak, d.StreakKey, d.StreakClass = 2, e.Key, e.Class
	default:
		d.Streak, d.StreakKey, d.StreakClass = 1, e.Key, e.Class
	}
	return d.Streak
}

// countState counts a sighting of the state h and answers its counted
// sightings in the window since the last report.
func (d *LoopDetector) countState(h string) int {
	if h == "" {
		return 0
	}
	if d.StateCounts == nil {
		d.StateCounts = map[string]int{}
	}
	d.StateCounts[h]++
	return d.StateCounts[h]
}

// reset starts a fresh count for every kind after a report.
func (d *LoopDetector) reset() {
	d.Since = d.Seen
	d.Streak, d.StreakKey, d.StreakClass = 0, "", ""
	d.StateCounts = nil
}
