package feed

import (
	"encoding/json"
	"strings"
)

// TypeText is model text as it streams. It has no id: it is not durable,
// and a follower that reconnects is told the text so far again (offset 0).
const TypeText = "text"

// Text is a text event: the request node's reply from byte Offset on, as
// written by the model activity's attempt Attempt. Offset 0 starts the
// node's text again (a new follower, or a new attempt after a worker
// died): a client replaces what it showed, and appends otherwise. The
// node's settled event carries the whole reply.
type Text struct {
	Node    string `json:"node"`
	Delta   string `json:"delta"`
	Offset  int    `json:"offset"`
	Attempt int32  `json:"attempt"`
}

// Live is a reply being written now: the text so far of request node
// Node, by attempt Attempt of its model activity.
type Live struct {
	Node    string
	Attempt int32
	Text    string
}

// liveText is what a follower told of the replies being written, so it
// sends each only what is new.
type liveText struct {
	told map[string]Live
}

// next is the text events for replies being written now. A node that
// settled (in settled) gets none: its node event carries the reply. A
// reply no longer written is forgotten.
func (l *liveText) next(live []Live, settled map[string]bool) []Event {
	var out []Event
	now := map[string]Live{}
	for _, r := range live {
		if r.Node == "" || settled[r.Node] {
			continue
		}
		now[r.Node] = r
		was, told := l.told[r.Node]
		switch {
		case told && was.Attempt == r.Attempt && strings.HasPrefix(r.Text, was.Text):
			if len(r.Text) > len(was.Text) {
				out = append(out, textEvent(r.Node, r.Text[len(was.Text):], len(was.Text), r.Attempt))
			}
		case r.Text != "" || told:
			out = append(out, textEvent(r.Node, r.Text, 0, r.Attempt))
		}
	}
	l.told = now
	return out
}

func textEvent(node, delta string, offset int, attempt int32) Event {
	return Event{Type: TypeText, Text: &Text{Node: node, Delta: delta, Offset: offset, Attempt: attempt}}
}

// flatText is a text event on the wire, flat as the contract writes it:
// {"type": "text", "node", "delta", "offset", "attempt"}.
type flatText struct {
	Type string `json:"type"`
	Text
}

// plainEvent is Event without its JSON methods.
type plainEvent Event

// MarshalJSON writes a text event flat; the others carry their node whole.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Type == TypeText && e.Text != nil {
		return json.Marshal(flatText{Type: TypeText, Text: *e.Text})
	}
	return json.Marshal(plainEvent(e))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *Event) UnmarshalJSON(b []byte) error {
	var kind struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &kind); err != nil {
		return err
	}
	if kind.Type == TypeText {
		var f flatText
		if err := json.Unmarshal(b, &f); err != nil {
			return err
		}
		*e = Event{Type: TypeText, Text: &f.Text}
		return nil
	}
	return json.Unmarshal(b, (*plainEvent)(e))
}
