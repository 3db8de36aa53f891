package policies

// EventRef is one event the loop detector saw, as the run keeps it: where
// it happened and its trace node. The run keeps the recent ones (bounded
// by the loop window) so a rung can find where a loop began and what it
// was made of. Its JSON is the run state's, across continue-as-new.
type EventRef struct {
	Where  string `json:"where"`   // graph node, "" for free-form calls
	NodeID string `json:"node_id"` // the trace node of the event
	// Class is how the event's call failed ("" when it did not, or for
	// runs whose events were kept before classes were).
	Class string `json:"class,omitempty"`
}

// AppendEvent appends ev and keeps at most window events, the newest, as
// the detector forgets older ones too (window 0 or less keeps none). Like
// append, it may reuse the backing array of events.
func AppendEvent(events []EventRef, ev EventRef, window int) []EventRef {
	events = append(events, ev)
	if w := max(window, 0); len(events) > w {
		events = events[len(events)-w:]
	}
	return events
}

// LoopSpan is the index in events where the loop began: the loop covers
// its last Period*Repeats events (all of them when fewer are kept). 0
// means nothing came before the loop, so there is nowhere to roll back to.
func LoopSpan(events []EventRef, loop Loop) int {
	n := min(max(loop.Period*loop.Repeats, 0), len(events))
	return len(events) - n
}

// LastPeriod are the events of the loop's last repetition, oldest first:
// the last loop.Period events of events[LoopSpan:] (all of them when
// fewer). The rungs act on these: the calls to block, the tool the loop
// is about, the graph nodes of the cycle.
func LastPeriod(events []EventRef, loop Loop) []EventRef {
	span := events[LoopSpan(events, loop):]
	if p := max(loop.Period, 0); len(span) > p {
		span = span[len(span)-p:]
	}
	return span
}

// CycleNodes are the graph nodes (Where) of the loop's last repetition, as
// a set (never nil): path exploration leaves them for a node outside it.
func CycleNodes(events []EventRef, loop Loop) map[string]bool {
	out := map[string]bool{}
	for _, e := range LastPeriod(events, loop) {
		out[e.Where] = true
	}
	return out
}
