package policies

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// benchRepeats is the default loop policy's repeats.
const benchRepeats = 3

// benchStream is a long random stream of signatures (an alphabet of 20)
// with no loop in it, the same for the detector and the seed's baseline:
// with no loop the baseline cannot stop at its first find, so both do the
// work of the common case, an agent that is not stuck.
func benchStream(window int) []string {
	rng := rand.New(rand.NewPCG(1, uint64(window)))
	return loopFreeAppend(rng, nil, 1<<13, 20, window/benchRepeats, benchRepeats)
}

// ns per Observe, with the window full.
func BenchmarkLoopDetector(b *testing.B) {
	for _, window := range []int{64, 512} {
		b.Run(fmt.Sprintf("window=%d", window), func(b *testing.B) {
			stream := benchStream(window)
			d := NewLoopDetector(window, benchRepeats)
			for _, s := range stream[:window] {
				d.Observe(LoopEvent{Signature: s})
			}
			i := window
			b.ReportAllocs()
			for b.Loop() {
				d.Observe(LoopEvent{Signature: stream[i]})
				if i++; i == len(stream) {
					i = 0
				}
			}
		})
	}
}

// ns per event for the seed's loop detector (the port in
// seed_baseline_test.go): each event is recorded in a history of `window`
// events and is_in_loop runs, as the seed's orchestrator does after every
// step; is_in_loop rescans the history for repeating event sequences,
// then for repeating states. An event is a tool result whose tool and
// state name the stream's symbol, so both scans see the same loop-free
// stream; every event is within the time window. min_loop_length 1 and
// min_repetitions 3 make the port look for what the detector looks for.
func BenchmarkSeedBaseline(b *testing.B) {
	for _, window := range []int{64, 512} {
		b.Run(fmt.Sprintf("window=%d", window), func(b *testing.B) {
			stream := benchStream(window)
			event := func(s string) seedAgentEvent {
				return seedAgentEvent{Kind: seedToolResult, Timestamp: seedNow, ToolName: s, Success: true, State: seedAgentState{Node: s, Goal: "bench"}}
			}
			tr := &seedHistoryTracker{maxSize: window}
			d := &seedLoopDetector{tracker: tr, minLoopLength: 1, minRepetitions: benchRepeats, timeWindowSeconds: 3600,
				now: func() time.Time { return seedNow }}
			for _, s := range stream[:window] {
				tr.recordEvent(event(s))
			}
			i := window
			b.ReportAllocs()
			for b.Loop() {
				tr.recordEvent(event(stream[i]))
				if d.isInLoop() {
					b.Fatalf("the seed's detector flags the loop-free stream at %d", i)
				}
				if i++; i == len(stream) {
					i = 0
				}
			}
		})
	}
}

// Random traces with no loop in them (checked by brute force) are never
// flagged; and on the traces that do hold a loop, the detector finds the
// first one at the very event the brute force does.
func TestLoopDetectorFalsePositives(t *testing.T) {
	const (
		traces   = 10_000
		length   = 200
		alphabet = 20
		window   = 64
	)
	rng := rand.New(rand.NewPCG(2024, 115))
	maxP := window / benchRepeats
	var flagged, rejected, missed int
	trace := make([]string, length)
	for clean := 0; clean < traces; {
		for i := range trace {
			trace[i] = symbol(rng.IntN(alphabet))
		}
		d := NewLoopDetector(window, benchRepeats)
		first := -1
		for i, s := range trace {
			if d.Observe(LoopEvent{Signature: s}) != nil && first < 0 {
				first = i
			}
		}
		if at, _ := firstPeriodic(trace, 0, maxP, benchRepeats); at >= 0 {
			rejected++ // a genuine loop: regenerate, but check the detector saw it
			if first != at {
				missed++
			}
			continue
		}
		clean++
		if first >= 0 {
			flagged++
		}
	}
	t.Logf("false positives: %d of %d loop-free traces (length %d, alphabet %d, window %d, repeats %d)",
		flagged, traces, length, alphabet, window, benchRepeats)
	t.Logf("traces with a genuine loop, regenerated: %d; first loop found at a different event: %d", rejected, missed)
	if flagged != 0 || missed != 0 {
		t.Fatalf("%d false positives, %d genuine loops found late or never", flagged, missed)
	}
}

// A cycle of any period embedded after random noise is reported at the
// event that completes its repeats-th repetition (delay 0), and again
// exactly `repeats` repetitions later.
func TestLoopDetectorDetectionDelay(t *testing.T) {
	const alphabet = 20
	rng := rand.New(rand.NewPCG(7, 7))
	for _, window := range []int{64, 512} {
		maxP := window / benchRepeats
		perPeriod := max(5, 420/maxP) // 20 a period at 64, 5 at 512: about a second in all
		cases, regenerated, maxDelay := 0, 0, 0
		for p := 1; p <= maxP; p++ {
			for range perPeriod {
				noise, cycle, history := delayCase(rng, p, maxP, alphabet)
				for history == nil {
					regenerated++
					noise, cycle, history = delayCase(rng, p, maxP, alphabet)
				}
				cases++
				d := NewLoopDetector(window, benchRepeats)
				got := detections(d, sigEvents(history...))
				want := []Loop{
					{Kind: LoopCycle, Period: p, Cycle: cycle, Repeats: benchRepeats, At: noise + p*benchRepeats - 1},
					{Kind: LoopCycle, Period: p, Cycle: cycle, Repeats: benchRepeats, At: noise + 2*p*benchRepeats - 1},
				}
				if len(got) > 0 {
					maxDelay = max(maxDelay, got[0].At-want[0].At)
				}
				if !slices.EqualFunc(got, want, func(a, b Loop) bool { return equalLoops(&a, &b) }) {
					t.Fatalf("window %d, period %d after %d events of noise: got %+v, want %+v", window, p, noise, got, want)
				}
			}
		}
		t.Logf("window=%d: %d cycles of period 1..%d after 0-100 events of noise; detection delay %d events (max over all cases); %d draws regenerated",
			window, cases, maxP, maxDelay, regenerated)
	}
}

// delayCase draws loop-free noise then a random cycle of period p, and
// keeps them only if the first loop of noise + cycle^repeats is exactly
// that cycle completing (a draw whose cycle holds a shorter loop, or
// runs on from the noise, is a different case); nil history otherwise.
// The history holds 2*repeats repetitions.
func delayCase(rng *rand.Rand, p, maxP, alphabet int) (noise int, cycle, history []string) {
	history = loopFreeAppend(rng, nil, rng.IntN(101), alphabet, maxP, benchRepeats)
	noise = len(history)
	// One pass of the cycle drawn loop-free too, so most draws are kept.
	cycle = slices.Clone(loopFreeAppend(rng, history, p, alphabet, maxP, benchRepeats)[noise:])
	history = history[:noise]
	for range benchRepeats {
		history = append(history, cycle...)
	}
	if at, period := firstPeriodic(history, noise, maxP, benchRepeats); at != len(history)-1 || period != p {
		return 0, nil, nil
	}
	for range benchRepeats {
		history = append(history, cycle...)
	}
	return noise, cycle, history
}
