package person

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testutil"
	"github.com/unstuck-dev/unstuck/signals"
)

// then: escalate over three groups (as by: will name them): each
// deadline but the last asks the next group with a whole timeout of its
// own, counted in the wait's state and shown in status; the last one's
// times out.
func TestAnEscalatingDeadlineAsksEachGroupInTurn(t *testing.T) {
	f := newFakeRun()
	f.call("n1", "book", signals.StatusPending)
	d := config.Deadline{Timeout: config.Duration(10 * time.Minute), Then: config.ThenEscalate}
	p := f.waits(&State{})
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		began := workflow.Now(ctx)
		var mid signals.PendingApproval
		workflow.Go(ctx, func(ctx workflow.Context) {
			_ = workflow.Sleep(ctx, 12*time.Minute)
			mid = p.PendingApprovals(workflow.Now(ctx))[0]
		})
		o, err := p.awaitApproval(ctx, "n1", "book", d, 3)
		assert.NoError(t, err)
		assert.True(t, o.TimedOut)
		assert.Equal(t, d, o.Deadline)
		assert.Equal(t, began.Add(30*time.Minute), workflow.Now(ctx), "each group had a whole timeout")
		assert.Equal(t, 1, mid.Escalations, "the second group is asked")
		assert.Equal(t, began.Add(10*time.Minute), mid.WaitingSince, "from the first deadline")
		assert.Equal(t, began.Add(20*time.Minute), mid.Deadline)
		assert.False(t, mid.Overdue, "2 of its 10 minutes")
	})
	assert.Equal(t, int64(2), f.counts[fmt.Sprint(MetricApprovalsEscalated, []string{"tool", "book"})])
	assert.Equal(t, int64(3), f.counts[fmt.Sprint(MetricApprovalsPastHalf, []string{"tool", "book"})], "each group's wait passed its half")
	assert.Equal(t, []string{"n1", "n1", "n1"}, f.forgot, "each escalation began a fresh wait; the end forgot the last")
	assert.Zero(t, p.Escalations("n1"), "the call waits no more")
}

// then: approve and reject never escalate, however many groups.
func TestOnlyEscalateAsksTheNextGroup(t *testing.T) {
	for _, then := range []string{config.ThenApprove, config.ThenReject} {
		f := newFakeRun()
		f.call("n1", "book", signals.StatusPending)
		d := config.Deadline{Timeout: config.Duration(10 * time.Minute), Then: then}
		testutil.InWorkflow(t, func(ctx workflow.Context) {
			began := workflow.Now(ctx)
			o, err := f.waits(&State{}).awaitApproval(ctx, "n1", "book", d, 3)
			assert.NoError(t, err)
			assert.True(t, o.TimedOut)
			assert.Equal(t, began.Add(10*time.Minute), workflow.Now(ctx))
		})
		assert.Zero(t, f.counts[fmt.Sprint(MetricApprovalsEscalated, []string{"tool", "book"})])
	}
}
