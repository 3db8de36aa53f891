package workflows

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// withWebhooks gives a run webhook pager (every event) and quiet
// (timed_out only), as Resolve keeps them: names and events.
func withWebhooks(spec *config.Resolved) *config.Resolved {
	spec.Notify = []config.Webhook{{Name: "pager"}, {Name: "quiet", On: []string{config.NotifyTimedOut}}}
	return spec
}

// notices records the run's notices; fail, when set, answers the first
// attempt of each with a retryable failure. asked counts the run's asks
// of versionNotify.
type notices struct {
	mu    sync.Mutex
	got   []activities.NotifyRequest
	tries int
	asked int
}

func (h *harness) notices(failFirst bool) *notices {
	n := &notices{}
	h.env.OnActivity(acts.Notify, mock.Anything, mock.Anything).Return(func(_ context.Context, req activities.NotifyRequest) error {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.tries++
		if failFirst && n.tries%2 == 1 {
			return temporal.NewApplicationError("HTTP 503", "")
		}
		n.got = append(n.got, req)
		return nil
	}).Maybe()
	h.env.OnGetVersion(versionNotify, workflow.DefaultVersion, 1).Run(func(mock.Arguments) { n.asked++ }).Return(workflow.Version(1)).Maybe()
	return n
}

// sent are the notices delivered, as webhook:event@node.
func (n *notices) sent() []string {
	var out []string
	for _, r := range n.got {
		out = append(out, r.Webhook+":"+r.Event+"@"+r.Node)
	}
	return out
}

// A free-form call waiting for approval tells pager as it begins and at
// half its timeout; the approval then completes the run. Each notice
// names the run, its agent, the call and its tool, and the wait's start
// and deadline.
func TestApprovalTellsTheWebhooks(t *testing.T) {
	h := newHarness(t, withWebhooks(approvalSpec()), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "b", `{"seat": "12A"}`)}},
		{Content: "done"},
	}, echoTool)
	n := h.notices(false)
	var got updateResult
	h.approve(40*time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "approve", Audit: signals.Audit{By: "ops"}}, &got)
	res, err := h.run(AgentInput{Agent: "agent", Task: "book"})
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	require.Equal(t, []string{"pager:waiting@n3", "pager:half_timeout@n3"}, n.sent())
	first := n.got[0]
	require.Equal(t, "agent", first.Agent)
	require.Equal(t, "b", first.Tool)
	require.NotEmpty(t, first.Run)
	require.NotEmpty(t, first.RunID)
	require.Equal(t, time.Hour, first.Deadline.Sub(first.Since))
	require.Equal(t, first.Since, n.got[1].Since)
	require.Positive(t, n.asked)
}

// A graph's tool node waiting for approval that times out tells pager of
// each event and quiet of the timeout; the run goes on as without them.
func TestGraphApprovalTimeoutTellsTheWebhooks(t *testing.T) {
	h := newHarness(t, withWebhooks(toolGraph()), nil, echoTool)
	n := h.notices(false)
	_, _ = h.run(AgentInput{Agent: "agent", Task: "book"})
	call := nodesOfCallsTo(h.trace(), "b")[0].ID
	requireTold(t, n.sent(), []string{"pager:waiting@" + call, "pager:half_timeout@" + call}, "pager:timed_out@"+call, "quiet:timed_out@"+call)
	require.Empty(t, h.toolReqs, "the call timed out without running")
}

// A run without webhooks asks no gate and sends nothing.
func TestNoWebhooksNoGateNoNotice(t *testing.T) {
	h := newHarness(t, toolGraph(), nil, echoTool)
	n := h.notices(false)
	_, _ = h.run(AgentInput{Agent: "agent", Task: "book"})
	require.Zero(t, n.asked)
	require.Zero(t, n.tries)
}

// A wait carried across continue-as-new does not tell of its start
// again: the generation that began it did.
func TestACarriedWaitTellsItsStartOnce(t *testing.T) {
	h := newHarness(t, withWebhooks(humanGraph()), nil, okEcho)
	n := h.notices(false)
	h.suggestWhileWaitingBy()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "ask"})
	next := continuedInput(t, h)
	human := carriedHumanNode(t, next.Continued)
	require.Equal(t, []string{"pager:waiting@" + human}, n.sent())

	h2 := newHarness(t, withWebhooks(humanGraph()), nil, okEcho)
	n2 := h2.notices(false)
	_, _ = h2.run(next)
	requireTold(t, n2.sent(), []string{"pager:half_timeout@" + human}, "pager:timed_out@"+human, "quiet:timed_out@"+human)
}

// A person agent that gets no reply stops the run; the run waits for its
// timed_out notices, retried once, before it closes.
func TestAPersonAgentsTimeoutIsToldBeforeTheRunCloses(t *testing.T) {
	h := newHarness(t, withWebhooks(personSpec(t)), nil, echoTool)
	n := h.notices(true)
	_, err := h.run(AgentInput{Agent: "person", Task: "decide"})
	require.Error(t, err)
	require.Equal(t, []string{config.NotifyWaiting, config.NotifyHalfTimeout, config.NotifyTimedOut, config.NotifyTimedOut}, eventsOf(n.got))
	require.Equal(t, 8, n.tries, "each notice was retried once")
}

func eventsOf(rs []activities.NotifyRequest) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Event)
	}
	return out
}

// requireTold asserts the notices sent: first in order, then the
// timeout's, told to both webhooks at once, in either order.
func requireTold(t *testing.T, sent, first []string, atOnce ...string) {
	t.Helper()
	require.Len(t, sent, len(first)+len(atOnce), "%v", sent)
	require.Equal(t, first, sent[:len(first)])
	require.ElementsMatch(t, atOnce, sent[len(first):])
}
