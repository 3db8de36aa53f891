package feed

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

// polls is a Source that answers each read from a list of polls, and
// counts the trace reads.
type polls struct {
	states []State
	nodes  [][]signals.Node
	at     int
	reads  int
	// order is what was read, in order: "phase" and "trace".
	order []string
}

func (p *polls) State(context.Context) (State, error) {
	st := p.states[p.at]
	p.at++
	return st, nil
}

func (p *polls) Changed(_ context.Context, after time.Time) ([]signals.Node, error) {
	p.reads++
	p.order = append(p.order, "trace")
	var out []signals.Node
	for _, n := range p.nodes[p.at-1] {
		if n.At.After(after) {
			out = append(out, n)
		}
	}
	return out, nil
}

func (p *polls) Phase(context.Context) (signals.Phase, error) {
	p.order = append(p.order, "phase")
	return signals.PhaseRunning, nil
}

// The trace is read only when the run's mark moved; text comes after the
// node events of its poll, and none for a node that settled, even when a
// later poll still lists its reply.
func TestFollowReadsTheTraceOnlyWhenTheRunMoved(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)
	running := signals.Node{ID: "n2", Kind: signals.KindRequest, Status: signals.StatusRunning, At: t0}
	settled := running
	settled.Status, settled.At = signals.StatusCompleted, t0.Add(time.Second)
	src := &polls{
		states: []State{
			{Mark: "r/5", Live: []Live{{Node: "n2", Attempt: 1, Text: "Hel"}}},
			{Mark: "r/5", Live: []Live{{Node: "n2", Attempt: 1, Text: "Hello"}}},
			{Mark: "r/8", Live: []Live{{Node: "n2", Attempt: 1, Text: "Hello!"}}},
			{Mark: "r/8", Live: []Live{{Node: "n2", Attempt: 1, Text: "Hello!"}}},
			{Mark: "r/9", Ended: true, Result: []byte(`{"ok":true}`)},
		},
		nodes: [][]signals.Node{{running}, {running}, {settled}, {settled}, {settled}},
	}
	var got []string
	err := Follow(context.Background(), src, Cursor{}, time.Millisecond, func(e Event) error {
		switch e.Type {
		case TypeText:
			got = append(got, "text "+e.Text.Delta)
		case TypeNode:
			got = append(got, "node "+string(e.Node.Status))
		default:
			got = append(got, e.Type)
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"node running", "phase", "text Hel", "text lo", "node completed", "end"}, got)
	require.Equal(t, 3, src.reads, "the second poll found the run where it was and read no trace")
	require.Equal(t, []string{"phase", "trace", "phase", "trace", "phase", "trace"}, src.order,
		"the phase is read before the nodes, so it is never told ahead of the nodes that led to it")
}
