package person

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testutil"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// A wait ends by what came first: the answer, then an edit, then a
// switch; the timeout when nothing came.
func TestAWaitSaysHowItEnded(t *testing.T) {
	cases := []struct {
		name                    string
		answered                bool
		interrupting, switching bool
		want                    End
	}{
		{name: "answered", answered: true, interrupting: true, want: Answered},
		{name: "edit over switch", interrupting: true, switching: true, want: Interrupted},
		{name: "switch", switching: true, want: Switching},
		{name: "nothing", want: TimedOut},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeRun()
			f.interrupting, f.switching = c.interrupting, c.switching
			testutil.InWorkflow(t, func(ctx workflow.Context) {
				end, timeout, err := f.waits(&State{}).Wait(ctx, Wait{
					Node: "n1", Answered: func() bool { return c.answered }, Edits: true, Switches: true,
				})
				assert.NoError(t, err)
				assert.Equal(t, c.want, end)
				assert.Equal(t, time.Hour, timeout)
			})
		})
	}
}

// A wait begun in a generation before keeps its deadline: past it, the
// wait ends at once; a whole timeout ignores when it began.
func TestAWaitKeepsItsDeadline(t *testing.T) {
	f := newFakeRun()
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		f.started["n1"] = workflow.Now(ctx).Add(-2 * time.Hour)
		began := workflow.Now(ctx)
		end, _, err := f.waits(&State{}).Wait(ctx, Wait{Node: "n1", Answered: func() bool { return false }})
		assert.NoError(t, err)
		assert.Equal(t, TimedOut, end)
		assert.Equal(t, began, workflow.Now(ctx), "no timer: the deadline had passed")

		end, timeout, _ := f.waits(&State{}).Wait(ctx, Wait{Node: "n1", Answered: func() bool { return false }, WholeTimeout: true})
		assert.Equal(t, TimedOut, end)
		assert.Equal(t, time.Hour, timeout)
		assert.Equal(t, began.Add(time.Hour), workflow.Now(ctx))
	})
}

// A decision settles only a call that waits for one, once, with
// arguments the tool takes.
func TestADecisionIsWantedOnlyByACallThatWaits(t *testing.T) {
	f := newFakeRun()
	f.call("n1", "book", signals.StatusAwaitingApproval)
	f.call("n2", "refund", signals.StatusRunning)
	var s State
	p := f.waits(&s)
	p.ExpectApproval("n1", "book_slowly") // a fallback stands in
	p.ExpectApproval("n2", "refund")

	refused := map[string]signals.ApproveRequest{
		`approve: "n9" is not a call of this run`:            {CallID: "n9", Decision: signals.DecisionApprove},
		"approve: call n2 is running, not awaiting approval": {CallID: "n2", Decision: signals.DecisionApprove},
		`approve: replace names unknown tool "book_slowly"`:  {CallID: "n1", Decision: signals.DecisionReplace, Call: &signals.ReplacementCall{Tool: "book_slowly"}},
		"approve: the arguments are not JSON":                {CallID: "n1", Decision: signals.DecisionModify, Args: json.RawMessage(`{`)},
	}
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		for want, req := range refused {
			err := p.ApproveWanted(ctx, req)
			require.Error(t, err, want)
			require.True(t, strings.HasPrefix(err.Error(), want), "%s: %v", want, err)
		}
		res, err := p.AcceptApproval(ctx, signals.ApproveRequest{CallID: "n1", Decision: signals.DecisionApprove})
		require.NoError(t, err)
		require.Equal(t, signals.ApproveResult{CallID: "n1", Decision: signals.DecisionApprove}, res)
		_, err = p.AcceptApproval(ctx, signals.ApproveRequest{CallID: "n1", Decision: signals.DecisionReject})
		require.EqualError(t, err, "approve: call n1 already has a decision")
	})

	pending := p.PendingApprovals(time.Now())
	require.Len(t, pending, 1, "n2 is listed as waiting but runs")
	require.Equal(t, "book_slowly", pending[0].Tool, "the fallback standing in is the tool to approve")
}

// A decision carried into a generation is taken by the call's wait at
// once; the call then waits no more.
func TestACarriedDecisionEndsTheWait(t *testing.T) {
	f := newFakeRun()
	f.call("n1", "book", signals.StatusAwaitingApproval)
	var s State
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		p := f.waits(&s)
		p.ExpectApproval("n1", "book")
		p.KeepDecision("n1", &signals.ApproveRequest{CallID: "n1", Decision: signals.DecisionApprove})
		o, err := p.AwaitApproval(ctx, "n1", "book")
		assert.NoError(t, err)
		assert.Equal(t, signals.DecisionApprove, o.Decision.Decision)
		assert.False(t, p.Waiting())
		assert.Nil(t, p.Decision("n1"), "taken once")
		assert.Equal(t, []string{"n1"}, f.forgot)
		assert.Equal(t, []signals.Phase{signals.PhaseAwaitingApproval, signals.PhaseRunning}, f.phases)
	})
}

// A call whose wait the switch ends stays listed, for the next
// generation; one that times out does not.
func TestASwitchHoldsTheCallAndATimeoutReleasesIt(t *testing.T) {
	f := newFakeRun()
	f.call("n1", "book", signals.StatusPending)
	f.switching = true
	var s State
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		p := f.waits(&s)
		o, err := p.AwaitApproval(ctx, "n1", "book")
		assert.NoError(t, err)
		assert.True(t, o.Held)
		assert.Equal(t, []string{"n1"}, p.WaitingApprovals())
		assert.Equal(t, signals.StatusAwaitingApproval, f.trace.Node("n1").Status)

		f.switching = false
		o, err = p.AwaitApproval(ctx, "n1", "book")
		assert.NoError(t, err)
		assert.True(t, o.TimedOut)
		assert.Empty(t, p.WaitingApprovals())
	})
}

// Each decision is an approval node, and counted; a rejection says who
// and why, a timeout how long the run waited.
func TestADecisionIsRecordedAndCounted(t *testing.T) {
	f := newFakeRun()
	f.call("n1", "book", signals.StatusAwaitingApproval)
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		p := f.waits(&State{})
		reject := &signals.ApproveRequest{Audit: signals.Audit{By: "ana", Reason: "too dear"}, CallID: "n1", Decision: signals.DecisionReject}
		_, _, why := p.Decide(ctx, "n1", config.Tool{Name: "book"}, nil, Outcome{Decision: reject})
		assert.Equal(t, "rejected by ana: too dear", why)
		_, _, why = p.Decide(ctx, "n1", config.Tool{Name: "book"}, nil, Outcome{TimedOut: true})
		assert.Equal(t, "no approval decision within human_timeout (1h0m0s)", why)

		modify := &signals.ApproveRequest{CallID: "n1", Decision: signals.DecisionModify, Args: json.RawMessage(`{"seat":"2A"}`)}
		tool, args, why := p.Decide(ctx, "n1", config.Tool{Name: "book"}, json.RawMessage(`{}`), Outcome{Decision: modify})
		assert.Empty(t, why)
		assert.Equal(t, "book", tool.Name)
		assert.JSONEq(t, `{"seat":"2A"}`, string(args))
		assert.Contains(t, string(f.trace.Node("n1").RanAs), `"decision":"modify"`)
	})
	require.Len(t, f.added, 3)
	require.Equal(t, signals.KindApproval, f.added[0].Kind)
	require.Equal(t, signals.StatusFailed, f.added[1].Status)
	require.Equal(t, int64(1), f.counts["unstuck_approvals[decision timeout]"])
	require.Equal(t, int64(1), f.counts["unstuck_approvals[decision reject]"])
}

// A reply lands only while a node waits for one, once; to a person
// agent, only with output it can complete with, or text when there is an
// agent to hand the run back to.
func TestAReplyIsWantedOnlyWhileANodeWaits(t *testing.T) {
	f := newFakeRun()
	var s State
	p := f.waits(&s)
	require.EqualError(t, p.ReplyWanted(nil, signals.ReplyRequest{Text: "hi"}), "reply: nothing waits for a reply (the run is running)")

	p.ExpectReply("n4", false, true)
	require.Equal(t, "n4", p.TakeHeld())
	require.Empty(t, p.TakeHeld(), "once")
	refused := map[string]signals.ReplyRequest{
		"reply: text alone hands the run back":       {Text: "hi"},
		`reply: "output" is not JSON`:                {Output: json.RawMessage(`{`)},
		`reply: "output" is 1537 KiB, over the 1536`: {Output: json.RawMessage(`"` + strings.Repeat("x", config.MaxPayloadBytes+1024) + `"`)},
	}
	for want, req := range refused {
		err := p.ReplyWanted(nil, req)
		require.Error(t, err, want)
		require.True(t, strings.HasPrefix(err.Error(), want), "%s: %v", want, err)
	}
	f.path = []string{"triage", "clerk"}
	res, err := p.AcceptReply(nil, signals.ReplyRequest{Text: "back to you"})
	require.NoError(t, err)
	require.Equal(t, "n4", res.NodeID)
	require.EqualError(t, p.ReplyWanted(nil, signals.ReplyRequest{Text: "again"}), "reply: n4 already has a reply")
	require.Equal(t, "back to you", p.Reply().Text)

	p.ReleaseReply("n9")
	require.Equal(t, "n4", p.ReplyNode(), "released only where it waits")
	p.ReleaseReply("n4")
	require.Empty(t, p.ReplyNode())
	require.Equal(t, []string{"n4"}, f.forgot)
}

// A reply wait at a node carried over waits there again; the reply is
// recorded on the node, which the run goes on from.
func TestAReplyIsTakenAtTheHeldNode(t *testing.T) {
	f := newFakeRun()
	f.trace.Nodes = append(f.trace.Nodes, trace.Node{Node: signals.Node{ID: "n1", Kind: signals.KindHuman, Status: signals.StatusPending}})
	var s State
	p := f.waits(&s)
	p.ExpectReply("n1", true, false)
	p.KeepReply(&signals.ReplyRequest{Text: "try the other road"})
	f.held = p.TakeHeld()
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		got, err := p.AwaitReply(ctx, Ask{Why: "stuck", Rung: true})
		reply, node, timedOut := got.Reply, got.Node, got.TimedOut
		assert.NoError(t, err)
		assert.False(t, timedOut)
		assert.Equal(t, "n1", node)
		assert.Equal(t, "try the other road", reply.Text)
	})
	require.Empty(t, f.added, "no second human node")
	require.Equal(t, []string{"n1"}, f.trace.Frontier)
	require.Equal(t, signals.StatusCompleted, f.trace.Node("n1").Status)
	require.False(t, p.Waiting())
}

// A reply wait the switch or an edit ends answers the run's paused
// errors; the switch keeps the node waiting for the next generation.
func TestAReplyWaitEndedEarlyIsPaused(t *testing.T) {
	f := newFakeRun()
	f.switching = true
	var s State
	p := f.waits(&s)
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		got, err := p.AwaitReply(ctx, Ask{Why: "graph node ask"})
		node := got.Node
		assert.ErrorIs(t, err, errPausedSwitch)
		assert.Equal(t, node, p.ReplyNode())

		f.switching, f.interrupting = false, true
		_, err = p.AwaitReply(ctx, Ask{Why: "graph node ask"})
		assert.ErrorIs(t, err, errPausedEdit)
		assert.Empty(t, p.ReplyNode())
	})
}

// An update the run could not carry out is answered with why, in a run
// that takes the gate; none is answered twice.
func TestAnUpdateNotCarriedOutIsAnswered(t *testing.T) {
	f := newFakeRun()
	p := f.waits(&State{})
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		p.AnswerClosed(ctx, nil)
		f.unanswered = signals.Edit
		p.AnswerClosed(ctx, nil) // as runs recorded before: the handler waits
		f.gate = true
		p.AnswerContinued(ctx, 3)
		p.AnswerClosed(ctx, errors.New("failed"))
	})
	require.Len(t, f.notCarried, 1)
	require.EqualError(t, f.notCarried[0], "edit: not carried out: the run continued as new into generation 3 before it could be (both reached the run at once); send it again to the run that follows")
	require.Equal(t, "the run completed", endedWhy(nil))
	require.Equal(t, "the run ended", endedWhy(errors.New("failed")))
}
