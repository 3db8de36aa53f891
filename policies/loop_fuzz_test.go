package policies

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// fuzzEvents turns bytes into events, one a byte, over small alphabets so
// that cycles, failure runs and recurring states are common: bits 0-1 the
// signature, 2 failed, 3 the key (or none), 4 the class, 5-7 the state.
func fuzzEvents(data []byte) []LoopEvent {
	events := make([]LoopEvent, len(data))
	for i, b := range data {
		e := LoopEvent{Signature: fmt.Sprint("s", b&3), Failed: b&4 != 0}
		if b&8 != 0 {
			e.Key = "k"
		}
		e.Class = []string{"transient", "persistent"}[b>>4&1]
		if h := b >> 5; h != 0 {
			e.StateHash = fmt.Sprint("h", h%3)
		}
		events[i] = e
	}
	return events
}

// The detector never panics; each report is a true loop of the observed
// history (checked by brute force); it reports exactly what the
// brute-force reference model reports, at the same events; and a JSON
// round trip at any point changes nothing.
func FuzzLoopDetector(f *testing.F) {
	f.Add([]byte("\x00\x00\x00"), uint8(64), uint8(3), uint16(1))
	f.Add([]byte("\x00\x01\x02\x00\x01\x02\x00\x01\x02\x00"), uint8(9), uint8(3), uint16(4))
	f.Add([]byte("\x0c\x0c\x0c\x0d\x0d\x0d\x2c\x4c\x2c\x4c\x2c"), uint8(8), uint8(2), uint16(6))
	f.Add([]byte("\x20\x01\x42\x23\x60\x21\x62\x03\x21"), uint8(5), uint8(2), uint16(0))
	f.Add([]byte("\x00\x01\x00\x01\x00\x01\x02\x03\x02\x03\x02\x03\x02\x03\x02\x03"), uint8(4), uint8(0), uint16(9))
	f.Fuzz(fuzzLoopDetectorBody)
}

// fuzzLoopDetectorBody is one run of FuzzLoopDetector: events from data,
// the limits from window and repeats, the JSON round trip after `cut`
// events.
func fuzzLoopDetectorBody(t *testing.T, data []byte, window, repeats uint8, cut uint16) {
	if len(data) > 2000 {
		data = data[:2000]
	}
	events := fuzzEvents(data)
	w, r := int(window%80), int(repeats%6) // 0: the default, 1: clamped
	d := NewLoopDetector(w, r)
	ref := newRefDetector(w, r)
	var sigs []string
	since := 0
	var got []Loop
	for i, e := range events {
		sigs = append(sigs, e.Signature)
		stateLoop := d.StateLoopAt(e)
		l := d.Observe(e)
		if l != nil && l.Kind == LoopState && !stateLoop {
			t.Fatalf("event %d: a state loop StateLoopAt did not foresee", i)
		}
		if stateLoop && l == nil {
			t.Fatalf("event %d: StateLoopAt foresaw a loop that did not come", i)
		}
		want := ref.observe(e)
		if !equalLoops(l, want) {
			t.Fatalf("event %d (window %d repeats %d): got %+v, the reference %+v", i, d.Window, d.Repeats, l, want)
		}
		if l == nil {
			continue
		}
		verifyLoop(t, d, events[:i+1], sigs, since, l)
		since = i + 1
		got = append(got, *l)
	}

	// The same events with a JSON round trip after `cut` of them.
	c := int(cut) % (len(events) + 1)
	d2 := NewLoopDetector(w, r)
	again := detections(d2, events[:c])
	d2 = roundTrip(t, d2)
	again = append(again, detections(d2, events[c:])...)
	if !slices.EqualFunc(got, again, func(a, b Loop) bool { return equalLoops(&a, &b) }) {
		t.Fatalf("round trip after %d events: %+v, without %+v", c, again, got)
	}
	a, _ := json.Marshal(d)
	b, _ := json.Marshal(d2)
	if string(a) != string(b) {
		t.Fatalf("round trip after %d events: state\n%s\nwithout\n%s", c, b, a)
	}
}

// verifyLoop checks a report against the history alone: what it claims
// repeated did repeat, inside the window and after the previous report.
func verifyLoop(t *testing.T, d *LoopDetector, events []LoopEvent, sigs []string, since int, l *Loop) {
	t.Helper()
	at, r := len(events)-1, d.Repeats
	if l.At != at || l.Repeats != r || len(l.Cycle) != l.Period || l.Period < 1 {
		t.Fatalf("malformed report %+v at event %d", l, at)
	}
	if !slices.Equal(l.Cycle, sigs[at-l.Period+1:]) {
		t.Fatalf("cycle %v is not the last period %v", l.Cycle, sigs[at-l.Period+1:])
	}
	switch l.Kind {
	case LoopCycle:
		start := at - l.Period*r + 1
		if l.Period > d.MaxPeriod() || start < since {
			t.Fatalf("cycle %+v does not fit the window or starts before %d", l, since)
		}
		for k := start; k <= at; k++ {
			if sigs[k] != l.Cycle[(k-start)%l.Period] {
				t.Fatalf("cycle %+v: event %d is %q", l, k, sigs[k])
			}
		}
	case LoopNoProgress:
		if at-r+1 < since {
			t.Fatalf("no progress %+v starts before %d", l, since)
		}
		for _, e := range events[at-r+1:] {
			if !e.Failed || e.Key != l.Key || e.Class != l.Class || l.Key == "" {
				t.Fatalf("no progress %+v: event %+v", l, e)
			}
		}
	case LoopState:
		n := 0
		for k := max(since, at-d.Window+1); k <= at; k++ {
			if events[k].StateHash == l.StateHash && l.StateHash != "" {
				n++
			}
		}
		if n < r || events[at-l.Period].StateHash != l.StateHash {
			t.Fatalf("state %+v seen %d times", l, n)
		}
	default:
		t.Fatalf("unknown kind %+v", l)
	}
}

func equalLoops(a, b *Loop) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && a.Period == b.Period && slices.Equal(a.Cycle, b.Cycle) &&
		a.Repeats == b.Repeats && a.At == b.At && a.Key == b.Key && a.Class == b.Class && a.StateHash == b.StateHash
}
