package policies

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// seq is the events of a space-separated list of signatures.
func seq(s string) []LoopEvent { return sigEvents(strings.Fields(s)...) }

// repeat is the events of block repeated n times.
func repeat(block string, n int) []LoopEvent {
	return seq(strings.TrimSpace(strings.Repeat(block+" ", n)))
}

// A cycle of any period up to window/repeats is reported at the event
// that completes its last repetition, with its smallest period and the
// signatures of one period, oldest first.
func TestLoopDetectorCycles(t *testing.T) {
	cases := []struct {
		name            string
		window, repeats int
		events          []LoopEvent
		want            []Loop
	}{
		{
			name: "period 1", window: 64, repeats: 3,
			events: seq("a a a"),
			want:   []Loop{{Kind: LoopCycle, Period: 1, Cycle: []string{"a"}, Repeats: 3, At: 2}},
		},
		{
			name: "period 2, not one event early", window: 64, repeats: 3,
			events: seq("a b a b a b"),
			want:   []Loop{{Kind: LoopCycle, Period: 2, Cycle: []string{"a", "b"}, Repeats: 3, At: 5}},
		},
		{
			name: "period 3 after noise", window: 64, repeats: 3,
			events: seq("x y z w a b c a b c a b c"),
			want:   []Loop{{Kind: LoopCycle, Period: 3, Cycle: []string{"a", "b", "c"}, Repeats: 3, At: 12}},
		},
		{
			name:   "a loop inside noise is reported once it completes, not after",
			window: 64, repeats: 3,
			events: seq("x y a b a b a b z w v"),
			want:   []Loop{{Kind: LoopCycle, Period: 2, Cycle: []string{"a", "b"}, Repeats: 3, At: 7}},
		},
		{
			name: "the cycle is the last period, whatever its phase", window: 64, repeats: 3,
			events: seq("c a b c a b c a b"),
			want:   []Loop{{Kind: LoopCycle, Period: 3, Cycle: []string{"c", "a", "b"}, Repeats: 3, At: 8}},
		},
		{
			name: "repeats 2", window: 64, repeats: 2,
			events: seq("x a b c a b c"),
			want:   []Loop{{Kind: LoopCycle, Period: 3, Cycle: []string{"a", "b", "c"}, Repeats: 2, At: 6}},
		},
		{
			name: "the smallest period wins: a a a inside a a a a a a", window: 64, repeats: 3,
			events: seq("x a a a"),
			want:   []Loop{{Kind: LoopCycle, Period: 1, Cycle: []string{"a"}, Repeats: 3, At: 3}},
		},
		{
			name: "two repetitions are not three", window: 64, repeats: 3,
			events: seq("a b a b x a b c a b c"),
		},
		{
			name: "a broken repetition starts the count again", window: 64, repeats: 3,
			events: seq("a b a b a c a b a b"),
		},
		{
			name: "two loops one after the other", window: 64, repeats: 2,
			events: seq("a b a b x y z x y z"),
			want: []Loop{
				{Kind: LoopCycle, Period: 2, Cycle: []string{"a", "b"}, Repeats: 2, At: 3},
				{Kind: LoopCycle, Period: 3, Cycle: []string{"x", "y", "z"}, Repeats: 2, At: 9},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := detections(NewLoopDetector(tc.window, tc.repeats), tc.events)
			require.Equal(t, tc.want, got)
		})
	}
}

// Every period from 1 to window/repeats, alone and after noise.
func TestLoopDetectorEveryPeriod(t *testing.T) {
	for _, window := range []int{6, 64, 100} {
		for _, repeats := range []int{2, 3, 4} {
			for p := 1; p <= window/repeats; p++ {
				for _, noise := range []int{0, 1, 7} {
					t.Run(fmt.Sprintf("window=%d/repeats=%d/period=%d/noise=%d", window, repeats, p, noise), func(t *testing.T) {
						var events []LoopEvent
						for i := range noise {
							events = append(events, LoopEvent{Signature: fmt.Sprintf("n%d", i)})
						}
						var cycle []string
						for i := range p {
							cycle = append(cycle, fmt.Sprintf("c%d", i))
						}
						for range repeats {
							events = append(events, sigEvents(cycle...)...)
						}
						got := detections(NewLoopDetector(window, repeats), events)
						want := []Loop{{Kind: LoopCycle, Period: p, Cycle: cycle, Repeats: repeats, At: noise + p*repeats - 1}}
						require.Equal(t, want, got)
					})
				}
			}
		}
	}
}

// A cycle whose repetitions do not fit in the window is not a loop.
func TestLoopDetectorWindowBound(t *testing.T) {
	cases := []struct {
		window, repeats, period int
		want                    bool
	}{
		{6, 3, 2, true},
		{6, 3, 3, false}, // 3 x 3 = 9 events > 6
		{8, 3, 3, false}, // max period 8/3 = 2
		{9, 3, 3, true},
		{64, 3, 21, true},
		{64, 3, 22, false},
		{2, 2, 1, true},
		{2, 2, 2, false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("window=%d/repeats=%d/period=%d", tc.window, tc.repeats, tc.period), func(t *testing.T) {
			var block []string
			for i := range tc.period {
				block = append(block, fmt.Sprintf("c%d", i))
			}
			got := detections(NewLoopDetector(tc.window, tc.repeats), repeat(strings.Join(block, " "), 3*tc.repeats))
			require.Equal(t, tc.want, len(got) > 0, "%v", got)
		})
	}
}

// Aperiodic sequences are never flagged, however long: the Thue-Morse
// sequence has no three repetitions of any block (it is cube-free), and
// the square-free ternary word derived from it not even two.
func TestLoopDetectorAperiodic(t *testing.T) {
	tm := func(i int) int { // Thue-Morse: parity of the bits of i
		n := 0
		for ; i > 0; i &= i - 1 {
			n++
		}
		return n % 2
	}
	var cubeFree, squareFree, distinct []string
	for i := range 5000 {
		cubeFree = append(cubeFree, fmt.Sprint("ab"[tm(i)]))
		// The number of 1s between consecutive 0s of Thue-Morse.
		squareFree = append(squareFree, fmt.Sprint(tm(i+1)-tm(i)+1))
		distinct = append(distinct, fmt.Sprint(i))
	}
	for _, window := range []int{6, 64, 512} {
		require.Empty(t, detections(NewLoopDetector(window, 3), sigEvents(cubeFree...)), "Thue-Morse, window %d", window)
		require.Empty(t, detections(NewLoopDetector(window, 2), sigEvents(squareFree...)), "square-free, window %d", window)
		require.Empty(t, detections(NewLoopDetector(window, 2), sigEvents(distinct...)), "all distinct, window %d", window)
	}
}

// After a report the same loop is reported again only after `repeats`
// more full repetitions, and the repetitions before a report never count
// towards the next one.
func TestLoopDetectorResetsAfterReport(t *testing.T) {
	at := func(ls []Loop) []int {
		var out []int
		for _, l := range ls {
			out = append(out, l.At)
		}
		return out
	}
	cases := []struct {
		name            string
		window, repeats int
		events          []LoopEvent
		want            []int
	}{
		{"period 1", 64, 3, repeat("a", 10), []int{2, 5, 8}},
		{"period 3", 64, 3, repeat("a b c", 7), []int{8, 17}},
		{"period 2, repeats 2", 64, 2, repeat("a b", 7), []int{3, 7, 11}},
		{"a change of loop after a report needs its own repeats", 64, 3, seq("a a a b b b a a a"), []int{2, 5, 8}},
		{"a new loop straddling a report is not reported early", 64, 3, seq("x a a a b a b a b a"), []int{3, 9}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, at(detections(NewLoopDetector(tc.window, tc.repeats), tc.events)))
		})
	}
}

// No progress: the same call failing with the same class `repeats` times
// in a row, even when the signatures (the error text) differ each time.
func TestLoopDetectorNoProgress(t *testing.T) {
	fail := func(sig, key, class string) LoopEvent {
		return LoopEvent{Signature: sig, Key: key, Failed: true, Class: class}
	}
	ok := func(sig, key string) LoopEvent { return LoopEvent{Signature: sig, Key: key} }
	cases := []struct {
		name   string
		events []LoopEvent
		want   []Loop
	}{
		{
			name:   "three failures, three error texts",
			events: []LoopEvent{fail("e1", "k", "transient"), fail("e2", "k", "transient"), fail("e3", "k", "transient")},
			want:   []Loop{{Kind: LoopNoProgress, Period: 1, Cycle: []string{"e3"}, Repeats: 3, At: 2, Key: "k", Class: "transient"}},
		},
		{
			name:   "a change of class breaks the run",
			events: []LoopEvent{fail("e1", "k", "transient"), fail("e2", "k", "invalid_args"), fail("e3", "k", "invalid_args")},
		},
		{
			name:   "a success breaks the run",
			events: []LoopEvent{fail("e1", "k", "transient"), fail("e2", "k", "transient"), ok("r", "k"), fail("e3", "k", "transient"), fail("e4", "k", "transient")},
		},
		{
			name:   "another call breaks the run",
			events: []LoopEvent{fail("e1", "k", "transient"), fail("e2", "k", "transient"), fail("e3", "j", "transient"), fail("e4", "k", "transient")},
		},
		{
			name:   "events without a key are not calls",
			events: []LoopEvent{fail("e1", "", "transient"), fail("e2", "", "transient"), fail("e3", "", "transient")},
		},
		{
			name: "identical failures are no progress rather than a cycle, reported once",
			events: []LoopEvent{
				fail("e", "k", "persistent"), fail("e", "k", "persistent"), fail("e", "k", "persistent"),
				fail("e", "k", "persistent"), fail("e", "k", "persistent"), fail("e", "k", "persistent"),
			},
			want: []Loop{
				{Kind: LoopNoProgress, Period: 1, Cycle: []string{"e"}, Repeats: 3, At: 2, Key: "k", Class: "persistent"},
				{Kind: LoopNoProgress, Period: 1, Cycle: []string{"e"}, Repeats: 3, At: 5, Key: "k", Class: "persistent"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, detections(NewLoopDetector(64, 3), tc.events))
		})
	}
}

// State recurrence: a state seen `repeats` times within the window,
// counting its first sighting and each time the run came back to it from
// another with nothing new (a signature already seen); the loop is the
// path back to it.
func TestLoopDetectorStateRecurrence(t *testing.T) {
	st := func(sig, h string) LoopEvent { return LoopEvent{Signature: sig, StateHash: h} }
	cases := []struct {
		name   string
		window int
		events []LoopEvent
		want   []Loop
	}{
		{
			name:   "back twice by calls already seen, not in a cycle",
			window: 64,
			events: []LoopEvent{st("a", "S"), st("b", "T"), st("r", "T"), st("a", "S"), st("r", "S"), st("b", "T"), st("a", "S")},
			want:   []Loop{{Kind: LoopState, Period: 3, Cycle: []string{"r", "b", "a"}, Repeats: 3, At: 6, StateHash: "S"}},
		},
		{
			name:   "back by new calls is progress",
			window: 64,
			events: []LoopEvent{st("a", "S"), st("b", "T"), st("c", "S"), st("d", ""), st("e", "U"), st("f", "S")},
		},
		{
			name:   "staying in one state is not coming back",
			window: 64,
			events: []LoopEvent{st("a", "S"), st("b", "S"), st("c", "S"), st("a", "S"), st("b", "S"), st("d", "S"), st("a", "S")},
		},
		{
			name:   "sightings spread wider than the window are not a loop",
			window: 4,
			events: []LoopEvent{st("a", "S"), st("b", "T"), st("c", "U"), st("a", "S"), st("b", "V"), st("c", "W"), st("a", "S")},
		},
		{
			name:   "empty hashes are unknown states",
			window: 64,
			events: []LoopEvent{st("a", ""), st("b", ""), st("c", ""), st("d", "")},
		},
		{
			name:   "after a report, three new sightings",
			window: 64,
			events: []LoopEvent{
				st("a", "S"), st("b", "T"), st("r", "T"), st("a", "S"), st("b", "T"), st("r", "T"), st("a", "S"),
				// What was seen before the report is new again: a (9) counts nothing.
				st("r", "S"), st("b", "T"), st("a", "S"), st("r", "S"), st("b", "T"), st("a", "S"), st("b", "T"),
			},
			want: []Loop{
				{Kind: LoopState, Period: 3, Cycle: []string{"b", "r", "a"}, Repeats: 3, At: 6, StateHash: "S"},
				{Kind: LoopState, Period: 2, Cycle: []string{"a", "b"}, Repeats: 3, At: 13, StateHash: "T"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, detections(NewLoopDetector(tc.window, 3), tc.events))
		})
	}
}

// When a cycle and a state recurrence complete at the same event the
// cycle is reported; when the state completes first it is, and either
// report resets both.
func TestLoopDetectorCycleAndState(t *testing.T) {
	cases := []struct {
		name   string
		states [2]string // of the two events of each period a b
		want   []Loop
	}{
		{
			name:   "both at the same event: the cycle",
			states: [2]string{"", "S"},
			want:   []Loop{{Kind: LoopCycle, Period: 2, Cycle: []string{"a", "b"}, Repeats: 3, At: 5}},
		},
		{
			name:   "the state first: the state, and no cycle right after",
			states: [2]string{"S", "T"},
			want:   []Loop{{Kind: LoopState, Period: 2, Cycle: []string{"b", "a"}, Repeats: 3, At: 4, StateHash: "S"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var events []LoopEvent
			for range 3 {
				events = append(events, LoopEvent{Signature: "a", StateHash: tc.states[0]}, LoopEvent{Signature: "b", StateHash: tc.states[1]})
			}
			require.Equal(t, tc.want, detections(NewLoopDetector(64, 3), events))
		})
	}
}

// A detector that goes through JSON mid-sequence (continue-as-new) then
// reports exactly what one that never did reports.
func TestLoopDetectorJSONRoundTrip(t *testing.T) {
	events := append(append(seq("x y"), repeat("a b c", 4)...), []LoopEvent{
		{Signature: "f1", Key: "k", Failed: true, Class: "transient", StateHash: "S"},
		{Signature: "f2", Key: "k", Failed: true, Class: "transient", StateHash: "T"},
		{Signature: "f3", Key: "k", Failed: true, Class: "transient", StateHash: "S"},
		{Signature: "g", StateHash: "S"},
	}...)
	events = append(events, repeat("p q", 5)...)
	want := detections(NewLoopDetector(16, 3), events)
	require.NotEmpty(t, want)
	for cut := range len(events) + 1 {
		d := NewLoopDetector(16, 3)
		got := detections(d, events[:cut])
		d = roundTrip(t, d)
		got = append(got, detections(d, events[cut:])...)
		require.Equal(t, want, got, "round trip after %d events", cut)
	}
}

// Bad limits are normalised, and a decoded state that does not hold
// together starts afresh instead of panicking in workflow code.
func TestLoopDetectorNormalises(t *testing.T) {
	d := NewLoopDetector(0, 0)
	require.Equal(t, 64, d.Window)
	require.Equal(t, 3, d.Repeats)
	d = NewLoopDetector(1, 1)
	require.Equal(t, 2, d.Window)
	require.Equal(t, 2, d.Repeats)
	require.Equal(t, 1, d.MaxPeriod())

	var zero LoopDetector
	require.Len(t, detections(&zero, repeat("a", 3)), 1, "the zero value has the default limits")

	broken := []LoopDetector{
		{Window: 8, Repeats: 2, Seen: 5},
		{Window: 8, Repeats: 2, Seen: -1},
		{Window: 8, Repeats: 2, Seen: 1, Since: 2, Sigs: []string{"a"}, States: []string{""}, Runs: []int{}},
		{Window: 8, Repeats: 2, Seen: 2, Sigs: []string{"a", "b"}, States: []string{""}, Runs: []int{0, 0}},
		{Window: 8, Repeats: 2, Seen: 1, Sigs: []string{"a"}, States: []string{""}, Runs: []int{0}, Streak: -3},
	}
	for i, b := range broken {
		require.NotPanics(t, func() { detections(&b, repeat("a b", 3)) }, "case %d", i)
		require.Equal(t, 6, b.Seen, "case %d restarted", i)
	}
}
