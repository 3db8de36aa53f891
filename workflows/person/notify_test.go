package person

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testutil"
	"github.com/unstuck-dev/unstuck/signals"
)

func TestHalfLeft(t *testing.T) {
	for _, c := range []struct {
		whole, waited, left time.Duration
		ahead               bool
	}{
		{time.Hour, 0, 30 * time.Minute, true},
		{time.Hour, 10 * time.Minute, 20 * time.Minute, true},
		{time.Hour, 30 * time.Minute, 0, false},
		{time.Hour, 50 * time.Minute, -20 * time.Minute, false},
		{time.Hour, -time.Minute, 30 * time.Minute, true}, // a clock that went back waited nothing
	} {
		left, ahead := halfLeft(c.whole, c.waited)
		assert.Equal(t, c.ahead, ahead, "%v waited of %v", c.waited, c.whole)
		if ahead {
			assert.Equal(t, c.left, left, "%v waited of %v", c.waited, c.whole)
		}
	}
}

// notifyingRun is a fake run with webhooks and the gate taken.
func notifyingRun() *fakeRun {
	f := newFakeRun()
	f.spec.Notify = []config.Webhook{{Name: "pager"}}
	f.gate = true
	return f
}

// answerAfter answers a wait d from now (never when d is 0).
func answerAfter(ctx workflow.Context, d time.Duration) func() bool {
	answered := false
	if d > 0 {
		workflow.Go(ctx, func(ctx workflow.Context) {
			_ = workflow.Sleep(ctx, d)
			answered = true
		})
	}
	return func() bool { return answered }
}

func events(ns []Notice) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Event)
	}
	return out
}

// A wait tells the webhooks as it begins, at half its timeout, and as it
// times out; one answered before its half tells only of its start. Each
// notice names the node, the tool, when the wait began and its deadline.
func TestAWaitTellsTheWebhooks(t *testing.T) {
	for _, c := range []struct {
		name     string
		answerAt time.Duration
		want     []string
		end      End
	}{
		{"timed out", 0, []string{config.NotifyWaiting, config.NotifyHalfTimeout, config.NotifyTimedOut}, TimedOut},
		{"answered after its half", 45 * time.Minute, []string{config.NotifyWaiting, config.NotifyHalfTimeout}, Answered},
		{"answered before its half", 10 * time.Minute, []string{config.NotifyWaiting}, Answered},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := notifyingRun()
			testutil.InWorkflow(t, func(ctx workflow.Context) {
				began := workflow.Now(ctx)
				end, _, err := f.waits(&State{}).Wait(ctx, Wait{
					Node: "n3", Tool: "book", Notify: true, Answered: answerAfter(ctx, c.answerAt),
				})
				require.NoError(t, err)
				assert.Equal(t, c.end, end)
				if c.end == TimedOut {
					assert.Equal(t, began.Add(time.Hour), workflow.Now(ctx), "the timeout is the same, split at its half")
				}
				require.Equal(t, c.want, events(f.notices))
				for _, n := range f.notices {
					assert.Equal(t, Notice{Event: n.Event, Node: "n3", Tool: "book", Since: began, Deadline: began.Add(time.Hour)}, n)
				}
			})
			assert.Equal(t, []Gate{GateNotify}, f.gates)
		})
	}
}

// A wait a generation before began was told of then: it tells of its
// half only if that is still ahead, and of its timeout.
func TestACarriedWaitDoesNotTellItsStartAgain(t *testing.T) {
	for _, c := range []struct {
		name   string
		waited time.Duration
		want   []string
	}{
		{"before its half", 10 * time.Minute, []string{config.NotifyHalfTimeout, config.NotifyTimedOut}},
		{"after its half", 40 * time.Minute, []string{config.NotifyTimedOut}},
		{"past its deadline", 2 * time.Hour, []string{config.NotifyTimedOut}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := notifyingRun()
			f.carried = map[string]bool{"n3": true}
			testutil.InWorkflow(t, func(ctx workflow.Context) {
				since := workflow.Now(ctx).Add(-c.waited)
				f.started["n3"] = since
				end, _, err := f.waits(&State{}).Wait(ctx, Wait{Node: "n3", Notify: true, Answered: answerAfter(ctx, 0)})
				require.NoError(t, err)
				assert.Equal(t, TimedOut, end)
				assert.Equal(t, c.want, events(f.notices))
				assert.Equal(t, since.Add(time.Hour), f.notices[0].Deadline)
			})
		})
	}
}

// A run without webhooks asks no gate and tells no one; nor does a run
// recorded before them, nor a wait that is not for a person's answer to
// a call or a human node (a budget rung, a conversation's message).
func TestNoWebhooksNoNotice(t *testing.T) {
	for _, c := range []struct {
		name   string
		run    func() *fakeRun
		notify bool
		gates  []Gate
	}{
		{"no webhooks", newFakeRun, true, nil},
		{"recorded before them", func() *fakeRun { f := notifyingRun(); f.gate = false; return f }, true, []Gate{GateNotify}},
		{"a wait that tells no one", notifyingRun, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := c.run()
			testutil.InWorkflow(t, func(ctx workflow.Context) {
				began := workflow.Now(ctx)
				end, _, err := f.waits(&State{}).Wait(ctx, Wait{Node: "n3", Notify: c.notify, Answered: answerAfter(ctx, 0)})
				require.NoError(t, err)
				assert.Equal(t, TimedOut, end)
				assert.Equal(t, began.Add(time.Hour), workflow.Now(ctx))
			})
			assert.Empty(t, f.notices)
			assert.Equal(t, c.gates, f.gates)
		})
	}
}

// An approval and a reply tell the webhooks: the approval with its tool.
func TestApprovalsAndRepliesTell(t *testing.T) {
	f := notifyingRun()
	f.call("n1", "book", signals.StatusRunning)
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		out, err := f.waits(&State{}).AwaitApproval(ctx, "n1", "book")
		require.NoError(t, err)
		assert.True(t, out.TimedOut)
		got, err := f.waits(&State{}).AwaitReply(ctx, Ask{Why: "stuck", Rung: true})
		node, timedOut := got.Node, got.TimedOut
		require.NoError(t, err)
		assert.True(t, timedOut)
		require.Len(t, f.notices, 6)
		assert.Equal(t, Notice{Event: config.NotifyWaiting, Node: "n1", Tool: "book", Since: f.notices[0].Since, Deadline: f.notices[0].Since.Add(time.Hour)}, f.notices[0])
		assert.Equal(t, node, f.notices[3].Node)
		assert.Equal(t, "", f.notices[3].Tool)
	})
}
