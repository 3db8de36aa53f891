package policies

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// seedDetectActionSequenceLoop is a direct port of detect_action_sequence_loop
// of the design seed (seeds/000, a Python LoopDetector), kept as the
// baseline the detector is benchmarked against. Like the original it
// rescans the whole history after every event: every start i (backwards,
// never 0), every length j up to half of what follows, hashing each
// candidate and each following block. It also flags a repetition anywhere
// in the history, not only one the agent is still in, and misses loops
// that start at the first event; the port keeps both, as a port should.
func seedDetectActionSequenceLoop(events []string, minLoopLength, minRepetitions int) []string {
	n := len(events)
	if n < minLoopLength*minRepetitions {
		return nil
	}
	for i := n - minLoopLength; i > 0; i-- {
		for j := minLoopLength; j <= (n-i)/2; j++ {
			candidate := events[i : i+j]
			candidateHash := seedHashEventSequence(candidate)
			repetitions := 1
			current := i + j
			for current+j <= n {
				if seedHashEventSequence(events[current:current+j]) != candidateHash {
					break
				}
				repetitions++
				current += j
			}
			if repetitions >= minRepetitions {
				return candidate
			}
		}
	}
	return nil
}

// seedHashEventSequence is the seed's _hash_event_sequence over event
// signatures: SHA-256 of the "->" join, as hex.
func seedHashEventSequence(seq []string) string {
	sum := sha256.Sum256([]byte(strings.Join(seq, "->")))
	return hex.EncodeToString(sum[:])
}

// The port answers what the Python original answers (outputs recorded by
// running the seed's function), including its blind spot at index 0 and
// its reports of loops the agent has already left.
func TestSeedBaselineMatchesThePythonOriginal(t *testing.T) {
	cases := []struct {
		in   string
		r    int
		want []string
	}{
		{"a a a", 2, []string{"a"}},
		{"a a a", 3, nil}, // a loop from the first event is missed
		{"x a a a", 2, []string{"a"}},
		{"x a a a", 3, []string{"a"}},
		{"x a b a b a b", 2, []string{"a", "b"}},
		{"x a b a b a b", 3, []string{"a", "b"}},
		{"a b c a b c a b c", 2, []string{"a", "b", "c"}},
		{"a b c a b c a b c", 3, nil},
		{"x a b c a b c a b c y", 2, []string{"a", "b", "c"}},
		{"x a b c a b c a b c y", 3, []string{"a", "b", "c"}}, // already left
		{"a b a b", 2, nil},
		{"a b a b", 3, nil},
		{"a a a b", 2, []string{"a"}},
		{"a a a b", 3, nil},
		{"a b c d e f", 2, nil},
		{"a b c d e f", 3, nil},
		{"x a a a a b c b c b c", 2, []string{"b", "c"}},
		{"x a a a a b c b c b c", 3, []string{"b", "c"}},
		{"x y", 2, nil},
		{"x y", 3, nil},
		{"q a b a b a b a b", 2, []string{"a", "b"}},
		{"q a b a b a b a b", 3, []string{"a", "b"}},
	}
	for _, tc := range cases {
		got := seedDetectActionSequenceLoop(strings.Fields(tc.in), 1, tc.r)
		require.Equal(t, tc.want, got, "%q repeats=%d", tc.in, tc.r)
	}
}
