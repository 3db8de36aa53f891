package feed

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"

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

// failing is a Source whose State read fails with the errors of errs, one
// a read, before it answers as src does.
type failing struct {
	*polls
	errs  []error
	tries int
}

func (f *failing) State(ctx context.Context) (State, error) {
	f.tries++
	if len(f.errs) > 0 {
		err := f.errs[0]
		f.errs = f.errs[1:]
		return State{}, err
	}
	return f.polls.State(ctx)
}

// A read that fails for a reason that passes (a query's own deadline, the
// server unavailable a moment) is made again at the next interval, and
// the events are told as if it had not failed; one that does not pass,
// or fails too many times in a row, ends the follow with its error.
func TestFollowReadsAgainAfterAFailureThatPasses(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)
	done := signals.Node{ID: "n2", Kind: signals.KindRequest, Status: signals.StatusCompleted, At: t0}
	run := func() *polls {
		return &polls{states: []State{{Mark: "r/9", Ended: true, Result: []byte(`{}`)}}, nodes: [][]signals.Node{{done}}}
	}
	follow := func(src Source) ([]string, error) {
		var got []string
		err := Follow(context.Background(), src, Cursor{}, time.Millisecond, func(e Event) error {
			got = append(got, e.Type)
			return nil
		})
		return got, err
	}
	busy := fmt.Errorf("query trace: %w", context.DeadlineExceeded)
	down := serviceerror.NewUnavailable("the server is restarting")

	src := &failing{polls: run(), errs: []error{busy, down}}
	got, err := follow(src)
	require.NoError(t, err)
	require.Equal(t, []string{TypeNode, TypePhase, TypeEnd}, got)
	require.Equal(t, 3, src.tries)

	bad := serviceerror.NewNotFound("workflow not found")
	src = &failing{polls: run(), errs: []error{bad}}
	got, err = follow(src)
	require.ErrorIs(t, err, bad, "a run that is not there is not a passing failure")
	require.Empty(t, got)
	require.Equal(t, 1, src.tries)

	src = &failing{polls: run(), errs: slices.Repeat([]error{busy}, maxFailedReads+1)}
	got, err = follow(src)
	require.ErrorIs(t, err, context.DeadlineExceeded, "it gives up after maxFailedReads in a row")
	require.Empty(t, got)
	require.Equal(t, maxFailedReads+1, src.tries)
}
