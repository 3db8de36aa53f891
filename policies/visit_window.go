package policies

import "time"

// LoopTimeWindow: the same node visited too often too fast (seed 000's
// time-windowed detection), whatever the visits did.
const LoopTimeWindow = "time_window"

// VisitWindow finds time-window loops: Visits visits of one node within
// Within. It catches what signatures cannot: a node that changes its
// arguments or the state at every visit (polling with a new cursor) yet
// keeps coming back. Times are the workflow's (workflow.Now), passed in:
// it reads no clock and ranges over no map, and lives in the run state.
type VisitWindow struct {
	Visits int           `json:"visits"`
	Within time.Duration `json:"within"`
	// Recent holds, per node, its latest visits inside Within since the
	// last report, oldest first, at most Visits; read by key only.
	Recent map[string][]Visit `json:"recent,omitempty"`
}

// Visit is one visit of a node: the loop event it was and when.
type Visit struct {
	At   int       `json:"at"` // the loop detector's event index
	Time time.Time `json:"time"`
}

// NewVisitWindow is the time window of policies.loop.time_window;
// validation keeps visits >= 2 and within > 0.
func NewVisitWindow(visits int, within time.Duration) *VisitWindow {
	return &VisitWindow{Visits: max(visits, 2), Within: within}
}

// Observe records a visit of node (event index at, time now) and
// answers the loop it completes, or nil. The loop's Period is the events
// since the node's previous visit (at most maxPeriod, what the caller
// still holds); its Cycle is for the caller to fill. A report forgets
// every visit (Reset): the next needs Visits new ones.
func (v *VisitWindow) Observe(node string, at int, now time.Time, maxPeriod int) *Loop {
	if v.Recent == nil {
		v.Recent = map[string][]Visit{}
	}
	visits := v.Recent[node]
	drop := 0
	for drop < len(visits) && (now.Sub(visits[drop].Time) > v.Within || len(visits)-drop >= v.Visits) {
		drop++
	}
	visits = append(visits[drop:], Visit{At: at, Time: now})
	v.Recent[node] = visits
	if len(visits) < v.Visits {
		return nil
	}
	period := max(min(at-visits[len(visits)-2].At, maxPeriod), 1)
	v.Reset()
	return &Loop{Kind: LoopTimeWindow, Period: period, Repeats: v.Visits, At: at}
}

// Reset forgets every visit: after a loop report of any kind, a time
// window counts afresh, as the detector does.
func (v *VisitWindow) Reset() { v.Recent = nil }
