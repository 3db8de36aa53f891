package feed

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/unstuck-dev/unstuck/signals"
)

// Types of events.
const (
	TypeNode     = "node"
	TypePhase    = "phase"
	TypeApproval = "approval"
	TypeEnd      = "end"
)

// Event is one event of a run's feed.
type Event struct {
	ID     string          `json:"id"`
	Type   string          `json:"type"`
	Node   *signals.Node   `json:"node,omitempty"`
	Phase  signals.Phase   `json:"phase,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	// Text is a text event's (TypeText), written flat (MarshalJSON).
	Text *Text `json:"-"`
}

// Cursor is where a follower is in a run's feed: after the event at At of
// node Node (phaseKey: the phase event at At), with the phase it was told.
type Cursor struct {
	At    time.Time
	Node  string
	Phase signals.Phase
	// Ended: the cursor is the run's end event; nothing comes after it.
	Ended bool
}

// phaseKey orders a phase event after the node events of its time.
const phaseKey = "~phase"

// key orders events: by time, then by node (its number), phase last.
func key(at time.Time, node string) (time.Time, int) {
	if node == phaseKey {
		return at, int(^uint(0) >> 1)
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(node, "n"))
	return at, n
}

// after says whether (at, node) comes after the cursor.
func (c Cursor) after(at time.Time, node string) bool {
	t1, n1 := key(at, node)
	t0, n0 := key(c.At, c.Node)
	return t1.After(t0) || (t1.Equal(t0) && n1 > n0)
}

// ID is the stable id of an event at at of node (or phaseKey) saying what.
func ID(at time.Time, node, what string) string {
	return at.UTC().Format(time.RFC3339Nano) + "/" + node + "/" + what
}

// ParseID reads the cursor an event id stands for; a follower resumes
// after it. A follower that resumes after a node's event is told the
// phase the run is in again, under an id of its own.
func ParseID(id string) (Cursor, error) {
	parts := strings.SplitN(id, "/", 3)
	if len(parts) != 3 {
		return Cursor{}, fmt.Errorf("event id %q is not one of this feed's (want <time>/<node>/<what>)", id)
	}
	at, err := time.Parse(time.RFC3339Nano, parts[0])
	if err != nil {
		return Cursor{}, fmt.Errorf("event id %q: its time: %v", id, err)
	}
	node := parts[1]
	if node != phaseKey && (!strings.HasPrefix(node, "n") || !isNumber(node[1:])) {
		return Cursor{}, fmt.Errorf("event id %q: %q is not a node id", id, node)
	}
	c := Cursor{At: at, Node: node}
	if node == phaseKey {
		// A phase event's id says the phase; an end's, the end.
		c.Phase, c.Ended = signals.Phase(parts[2]), parts[2] == TypeEnd
	}
	return c, nil
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return s != "" && err == nil
}

// Next is the feed's events after cursor c, given the nodes that changed
// since (in any order) and the run's phase now, and the cursor after them.
// A node's event says its status; a call waiting for approval has an
// approval event too; the phase has an event when it is not the one c
// was told.
func Next(c Cursor, nodes []signals.Node, phase signals.Phase) ([]Event, Cursor) {
	var out []Event
	for i := range nodes {
		n := nodes[i]
		if !c.after(n.At, n.ID) {
			continue
		}
		out = append(out, Event{ID: ID(n.At, n.ID, string(n.Status)), Type: TypeNode, Node: &n})
		if n.Status == signals.StatusAwaitingApproval {
			out = append(out, Event{ID: ID(n.At, n.ID, TypeApproval), Type: TypeApproval, Node: &n})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		ti, ni := key(out[i].Node.At, out[i].Node.ID)
		tj, nj := key(out[j].Node.At, out[j].Node.ID)
		return ti.Before(tj) || (ti.Equal(tj) && ni < nj)
	})
	if len(out) > 0 {
		last := out[len(out)-1].Node
		c.At, c.Node = last.At, last.ID
	}
	if phase != "" && phase != c.Phase {
		at := c.At
		out = append(out, Event{ID: ID(at, phaseKey, string(phase)), Type: TypePhase, Phase: phase})
		c.Node, c.Phase = phaseKey, phase
	}
	return out, c
}
