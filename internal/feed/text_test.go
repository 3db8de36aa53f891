package feed

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func texts(events []Event) []Text {
	var out []Text
	for _, e := range events {
		out = append(out, *e.Text)
	}
	return out
}

// A reply being written is told once, in order: what is new from the
// offset told before; a new attempt, or text that no longer continues
// what was told, starts again at 0; a settled node gets no text.
func TestLiveTextTellsWhatIsNewOnce(t *testing.T) {
	var l liveText
	require.Equal(t, []Text{{Node: "n3", Delta: "Hel", Attempt: 1}},
		texts(l.next([]Live{{Node: "n3", Attempt: 1, Text: "Hel"}}, nil)))
	require.Empty(t, l.next([]Live{{Node: "n3", Attempt: 1, Text: "Hel"}}, nil), "nothing new")
	require.Equal(t, []Text{{Node: "n3", Delta: "lo, wor", Offset: 3, Attempt: 1}},
		texts(l.next([]Live{{Node: "n3", Attempt: 1, Text: "Hello, wor"}}, nil)))
	require.Equal(t, []Text{{Node: "n3", Delta: "Hi", Attempt: 2}},
		texts(l.next([]Live{{Node: "n3", Attempt: 2, Text: "Hi"}}, nil)), "a new attempt writes again from the start")
	require.Equal(t, []Text{{Node: "n3", Delta: "Ho", Attempt: 2}},
		texts(l.next([]Live{{Node: "n3", Attempt: 2, Text: "Ho"}}, nil)), "text that does not continue what was told starts again")
	require.Empty(t, l.next([]Live{{Node: "n3", Attempt: 2, Text: "Hold on"}}, map[string]bool{"n3": true}), "settled: its node event carries the reply")
	require.Equal(t, []Text{{Node: "n5", Delta: "Next", Attempt: 1}},
		texts(l.next([]Live{{Node: "n5", Attempt: 1, Text: "Next"}, {Text: "a run that names no node"}}, nil)))
	require.Empty(t, l.next([]Live{{Node: "n7", Attempt: 1}}, nil), "no text yet: nothing to tell")
}

// A text event is flat on the wire, with no id; the others carry their
// node whole; both read back as written.
func TestTextEventsAreFlatOnTheWire(t *testing.T) {
	e := textEvent("n3", "lo", 3, 1)
	b, err := json.Marshal(e)
	require.NoError(t, err)
	require.JSONEq(t, `{"type": "text", "node": "n3", "delta": "lo", "offset": 3, "attempt": 1}`, string(b))
	var back Event
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, e, back)

	at := time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)
	n := node("n4", "completed", at)
	e = Event{ID: ID(at, "n4", "completed"), Type: TypeNode, Node: &n}
	b, err = json.Marshal(e)
	require.NoError(t, err)
	require.Contains(t, string(b), `"node":{"id":"n4"`)
	back = Event{}
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, e.ID, back.ID)
	require.Equal(t, "n4", back.Node.ID)
}
