package policies

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A port of the design seed's loop detector (seeds/000: AgentState, the
// three AgentEvent kinds, HistoryTracker, LoopDetector), kept as the
// baseline the detector is benchmarked against. It does what the Python
// does, step by step, including what makes it slow and what it misses:
//   - after every event, is_in_loop rescans the history twice, once for
//     repeating event sequences and once for repeating states: every start
//     i (backwards, never 0), every length j up to half of what follows;
//   - every candidate and every following block is hashed again (SHA-256
//     of the events' "NODE:x" / "TOOL_CALL:t" / "TOOL_RESULT:t:ok" join);
//     states are compared by their to_dict;
//   - only events within the time window of now count (its own clock,
//     here a parameter), and the history is a deque of max_history_size;
//   - it flags a repetition anywhere in that history, not only one the
//     agent is still in, and misses a loop from the first event it keeps.

// seedAgentState is the seed's AgentState: two are equal when their
// to_dict are (here their JSON, whose map keys are sorted).
type seedAgentState struct {
	Node   string
	Goal   string
	Custom map[string]any
}

func (s seedAgentState) toDict() string {
	d := map[string]any{"current_node_id": s.Node, "goal": s.Goal}
	for k, v := range s.Custom {
		d[k] = v
	}
	b, _ := json.Marshal(d)
	return string(b)
}

// The seed's event classes.
const (
	seedNodeVisit = iota
	seedToolCall
	seedToolResult
)

type seedAgentEvent struct {
	Kind      int
	Timestamp time.Time
	State     seedAgentState
	NodeID    string // NodeVisitEvent
	ToolName  string // ToolCallEvent, ToolResultEvent
	Success   bool   // ToolResultEvent
}

// seedHistoryTracker is a deque(maxlen=max_history_size).
type seedHistoryTracker struct {
	maxSize int
	history []seedAgentEvent
}

func (h *seedHistoryTracker) recordEvent(e seedAgentEvent) {
	h.history = append(h.history, e)
	if len(h.history) > h.maxSize {
		h.history = h.history[len(h.history)-h.maxSize:]
	}
}

type seedLoopDetector struct {
	tracker           *seedHistoryTracker
	minLoopLength     int
	minRepetitions    int
	timeWindowSeconds float64
	now               func() time.Time // datetime.datetime.now
}

// getRelevantEvents: the events within the time window (a new list).
func (d *seedLoopDetector) getRelevantEvents() []seedAgentEvent {
	now := d.now()
	var out []seedAgentEvent
	for _, e := range d.tracker.history {
		if now.Sub(e.Timestamp).Seconds() <= d.timeWindowSeconds {
			out = append(out, e)
		}
	}
	return out
}

func (d *seedLoopDetector) hashEventSequence(seq []seedAgentEvent) string {
	var data []string
	for _, e := range seq {
		switch e.Kind {
		case seedNodeVisit:
			data = append(data, "NODE:"+e.NodeID)
		case seedToolCall:
			data = append(data, "TOOL_CALL:"+e.ToolName)
		case seedToolResult:
			data = append(data, "TOOL_RESULT:"+e.ToolName+":"+pyBool(e.Success))
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(data, "->")))
	return hex.EncodeToString(sum[:])
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func (d *seedLoopDetector) detectActionSequenceLoop() []seedAgentEvent {
	events := d.getRelevantEvents()
	n, m := len(events), d.minLoopLength
	if n < m*d.minRepetitions {
		return nil
	}
	for i := n - m; i > 0; i-- {
		for j := m; j <= (n-i)/2; j++ {
			candidate := events[i : i+j]
			candidateHash := d.hashEventSequence(candidate)
			repetitions, current := 1, i+j
			for current+j <= n {
				if d.hashEventSequence(events[current:current+j]) != candidateHash {
					break
				}
				repetitions++
				current += j
			}
			if repetitions >= d.minRepetitions {
				return candidate
			}
		}
	}
	return nil
}

func (d *seedLoopDetector) detectStateLoop() []seedAgentState {
	events := d.getRelevantEvents()
	n, m := len(events), d.minLoopLength
	if n < m*d.minRepetitions {
		return nil
	}
	states := make([]seedAgentState, n)
	for i, e := range events {
		states[i] = e.State
	}
	equal := func(a, b []seedAgentState) bool { // list ==, element by element __eq__
		return slices.EqualFunc(a, b, func(x, y seedAgentState) bool { return x.toDict() == y.toDict() })
	}
	for i := n - m; i > 0; i-- {
		for j := m; j <= (n-i)/2; j++ {
			candidate := states[i : i+j]
			repetitions, current := 1, i+j
			for current+j <= n {
				if !equal(candidate, states[current:current+j]) {
					break
				}
				repetitions++
				current += j
			}
			if repetitions >= d.minRepetitions {
				return candidate
			}
		}
	}
	return nil
}

func (d *seedLoopDetector) isInLoop() bool {
	return d.detectActionSequenceLoop() != nil || d.detectStateLoop() != nil
}

var seedNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// seedCase builds the port over node visits: nodes, the states' nodes and
// the events' ages in seconds, one per event.
func seedCase(nodes, states, ages string, minLoopLength, minRepetitions, window, maxHistory int) *seedLoopDetector {
	tr := &seedHistoryTracker{maxSize: maxHistory}
	ss, as := strings.Fields(states), strings.Fields(ages)
	for i, n := range strings.Fields(nodes) {
		age, _ := strconv.Atoi(as[i])
		tr.recordEvent(seedAgentEvent{Kind: seedNodeVisit, NodeID: n, Timestamp: seedNow.Add(-time.Duration(age) * time.Second),
			State: seedAgentState{Node: ss[i], Goal: "g"}})
	}
	return &seedLoopDetector{tracker: tr, minLoopLength: minLoopLength, minRepetitions: minRepetitions,
		timeWindowSeconds: float64(window), now: func() time.Time { return seedNow }}
}

func nodesOfEvents(es []seedAgentEvent) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.NodeID)
	}
	return out
}

func nodesOfStates(ss []seedAgentState) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Node)
	}
	return out
}

// The port answers what the Python original answers (outputs recorded by
// running the seed's LoopDetector over node visits, states and ages as
// given), including its blind spot at index 0 and its reports of loops
// the agent has already left.
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
		zeros := strings.TrimSpace(strings.Repeat("0 ", len(strings.Fields(tc.in))))
		d := seedCase(tc.in, tc.in, zeros, 1, tc.r, 60, 100)
		require.Equal(t, tc.want, nodesOfEvents(d.detectActionSequenceLoop()), "%q repeats=%d", tc.in, tc.r)
	}

	// States, the time window and the history's size.
	more := []struct {
		nodes, states, ages string
		minLen, minRep      int
		window, maxHistory  int
		action, state       []string
		inLoop              bool
	}{
		{"x a b a b a b", "x a b a b a b", "0 0 0 0 0 0 0", 1, 3, 60, 100, []string{"a", "b"}, []string{"a", "b"}, true},
		{"x a b c d e f", "x s t s t s t", "0 0 0 0 0 0 0", 1, 3, 60, 100, nil, []string{"s", "t"}, true},
		{"x a b c d e f", "x s t s t s t", "0 0 0 0 0 0 0", 3, 2, 60, 100, nil, nil, false}, // the seed's min_loop_length 3
		{"x a b c a b c", "x s s s s s s", "0 0 0 0 0 0 0", 3, 2, 60, 100, []string{"a", "b", "c"}, []string{"s", "s", "s"}, true},
		{"x y a a a", "x y p q r", "90 90 0 0 0", 1, 3, 60, 100, nil, nil, false}, // x, y out of the window: the loop starts the relevant events
		{"a a a", "p q r", "90 0 0", 1, 2, 60, 100, nil, nil, false},
		{"a a a", "p q r", "0 0 0", 1, 2, 60, 100, []string{"a"}, nil, true},
		{"y a a a", "p q r s", "70 61 60 0", 1, 2, 60, 100, nil, nil, false}, // 60 s old is in, 61 is out
		{"x y z a a a", "x y z p q r", "0 0 0 0 0 0", 1, 3, 60, 4, []string{"a"}, nil, true},
		{"x y a a a", "x y p q r", "0 0 0 0 0", 1, 3, 60, 4, []string{"a"}, nil, true},
	}
	for _, tc := range more {
		name := fmt.Sprintf("%q %q ages %q min_loop_length=%d min_repetitions=%d window=%d max_history=%d",
			tc.nodes, tc.states, tc.ages, tc.minLen, tc.minRep, tc.window, tc.maxHistory)
		d := seedCase(tc.nodes, tc.states, tc.ages, tc.minLen, tc.minRep, tc.window, tc.maxHistory)
		require.Equal(t, tc.action, nodesOfEvents(d.detectActionSequenceLoop()), name)
		require.Equal(t, tc.state, nodesOfStates(d.detectStateLoop()), name)
		require.Equal(t, tc.inLoop, d.isInLoop(), name)
	}
}
