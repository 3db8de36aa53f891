package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/signals"
)

// gets is a WorkflowRun whose Get answers errs in turn.
type gets struct {
	client.WorkflowRun
	errs  []error
	asked int
}

func (g *gets) Get(ctx context.Context, _ any) error {
	g.asked++
	if len(g.errs) == 0 {
		<-ctx.Done()
		return ctx.Err()
	}
	err := g.errs[0]
	g.errs = g.errs[1:]
	return err
}

// A run's wait ends with the run's own end, or when its context is done:
// a call's own deadline or a busy server is not the run's end, and is
// asked again, so a run taken for closed is never left open.
func TestRunResultTellsTheRunsEndFromAFailedCall(t *testing.T) {
	for _, tc := range []struct {
		name   string
		errs   []error
		closed bool
		asked  int
	}{
		{"completed", []error{nil}, true, 1},
		{"the call's own deadline, the server busy, then the run's end", []error{context.DeadlineExceeded, errors.New("server busy"), nil}, true, 3},
		{"nothing before the context is done", nil, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			g := &gets{errs: tc.errs}
			w := runResult(ctx, g)
			require.Equal(t, tc.closed, w.closed, "%v", w.err)
			require.Equal(t, tc.asked, g.asked)
		})
	}
}

// A run the eval's timeout ended says what it waited for: a person, a
// tool that was down, or only its last phase.
func TestARunNotDoneSaysWhatItWaitedFor(t *testing.T) {
	r := &evalRunner{timeout: time.Minute}
	ctx := context.Background()
	for phase, want := range map[signals.Phase]string{
		signals.PhaseAwaitingHuman: "no result within --timeout 1m0s (it waited in phase awaiting_human, for a person; an eval answers none)",
		signals.PhaseWaitingOutage: "no result within --timeout 1m0s (it waited in phase waiting_outage: a tool it calls was down)",
		signals.PhaseRunning:       "no result within --timeout 1m0s (last seen in phase running)",
		"":                         "no result within --timeout 1m0s",
	} {
		require.Equal(t, want, r.notDone(ctx, phase), phase)
	}
}
