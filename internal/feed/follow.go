package feed

import (
	"context"
	"encoding/json"
	"time"

	"github.com/unstuck-dev/unstuck/signals"
)

// Source is a run a follower reads: its nodes changed after a time, its
// phase, and whether it has ended (with its result, or why it failed).
type Source interface {
	Changed(ctx context.Context, after time.Time) ([]signals.Node, error)
	Phase(ctx context.Context) (signals.Phase, error)
	Ended(ctx context.Context) (ended bool, result json.RawMessage, err error)
}

// Follow reads the run's events after c, every interval, and gives each
// to emit in order, until the run ends (its end event is the last) or ctx
// is done.
func Follow(ctx context.Context, src Source, c Cursor, interval time.Duration, emit func(Event) error) error {
	for !c.Ended {
		ended, result, err := src.Ended(ctx)
		if err != nil {
			return err
		}
		// Read after the end was seen, the nodes are all there.
		nodes, err := src.Changed(ctx, c.At.Add(-time.Nanosecond))
		if err != nil {
			return err
		}
		phase, err := src.Phase(ctx)
		if err != nil {
			return err
		}
		var events []Event
		events, c = Next(c, nodes, phase)
		for _, e := range events {
			if err := emit(e); err != nil {
				return err
			}
		}
		if ended {
			return emit(Event{ID: ID(c.At, phaseKey, TypeEnd), Type: TypeEnd, Result: result})
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
	return nil
}
