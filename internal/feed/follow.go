package feed

import (
	"context"
	"encoding/json"
	"time"

	"github.com/unstuck-dev/unstuck/signals"
)

// Source is a run a follower reads: its state (cheap, read every
// interval), and the nodes changed after a time and its phase (read when
// the state says they may have changed).
type Source interface {
	State(ctx context.Context) (State, error)
	Changed(ctx context.Context, after time.Time) ([]signals.Node, error)
	Phase(ctx context.Context) (signals.Phase, error)
}

// State is what a follower reads of a run every interval.
type State struct {
	// Ended: the run closed, with its result (or why it failed).
	Ended  bool
	Result json.RawMessage
	// Mark changes whenever the run's trace or phase may have (its run and
	// history length: both change only in a workflow task, which adds
	// events). Empty: read them every time.
	Mark string
	// Live are the replies being written now.
	Live []Live
}

// Follow reads the run's events after c, every interval, and gives each
// to emit in order, until the run ends (its end event is the last) or ctx
// is done. The trace and phase are queried only when the run's Mark
// moved, so a follower of a run that waits costs one read an interval. A
// read that fails for a reason that passes (passing) is made again at the
// next interval, up to maxFailedReads in a row.
func Follow(ctx context.Context, src Source, c Cursor, interval time.Duration, emit func(Event) error) error {
	f := follower{src: src, c: c, settled: map[string]bool{}}
	failed := 0
	for !f.c.Ended {
		events, ended, err := f.poll(ctx)
		switch {
		case err != nil && passing(ctx, err) && failed < maxFailedReads:
			failed++
		case err != nil:
			return err
		default:
			failed = 0
			for _, e := range events {
				if err := emit(e); err != nil {
					return err
				}
			}
			if ended != nil {
				return emit(*ended)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
	return nil
}

// follower is what Follow keeps between reads.
type follower struct {
	src  Source
	c    Cursor
	live liveText
	// settled are the nodes told settled: a reply's text may still be
	// listed a moment after its node settled, and is not told again.
	settled map[string]bool
	read    string // the Mark the trace was last read at
}

// poll reads the run once: the events since the last poll and, once the
// run ended, its end event. A poll that fails changes nothing, so the
// next reads the same again.
func (f *follower) poll(ctx context.Context) (events []Event, end *Event, err error) {
	st, err := f.src.State(ctx)
	if err != nil {
		return nil, nil, err
	}
	c := f.c
	if st.Mark == "" || st.Mark != f.read || st.Ended {
		// The phase is read first: the nodes read after it are as new or
		// newer, so a phase is never told before the nodes that led to it
		// (a turn's answer before its awaiting_user). Read after the end
		// was seen, the nodes are all there.
		phase, err := f.src.Phase(ctx)
		if err != nil {
			return nil, nil, err
		}
		nodes, err := f.src.Changed(ctx, c.At.Add(-time.Nanosecond))
		if err != nil {
			return nil, nil, err
		}
		events, c = Next(c, nodes, phase)
		for _, n := range nodes {
			if n.Kind == signals.KindRequest && n.Status.Settled() {
				f.settled[n.ID] = true
			}
		}
		f.read = st.Mark
	}
	f.c = c
	events = append(events, f.live.next(st.Live, f.settled)...)
	if st.Ended {
		end = &Event{ID: ID(c.At, phaseKey, TypeEnd), Type: TypeEnd, Result: st.Result}
	}
	return events, end, nil
}
