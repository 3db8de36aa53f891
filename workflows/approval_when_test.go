package workflows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// approval: {when}: a call waits for a person only when its condition
// holds over the call's args and the run's state and input, or cannot be
// evaluated; otherwise it runs at once, and its node says so.

const amountOverLimit = "args.amount > input.limit"

func whenSpec() *config.Resolved {
	spec := approvalSpec()
	for i := range spec.Tools {
		if spec.Tools[i].Name == "b" {
			spec.Tools[i].Approval = config.Approval{When: amountOverLimit}
		}
	}
	return spec
}

// whenFreeForm runs a free-form step calling b with args (its call is
// n3), with input {"limit": 1000}.
func whenFreeForm(t *testing.T, args string, decide func(h *harness)) (*harness, signals.Status) {
	h := newHarness(t, whenSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "b", args), call("k2", "a", `{"q": 1}`)}},
		{Content: "done"},
	}, echoTool)
	var seen signals.Status
	h.env.RegisterDelayedCallback(func() { seen = h.status() }, 30*time.Second)
	decide(h)
	_, err := h.run(AgentInput{Agent: "agent", Task: "pay", Input: json.RawMessage(`{"limit": 1000}`)})
	require.NoError(t, err)
	return h, seen
}

func toolsCalled(h *harness) []string {
	var tools []string
	for _, r := range h.toolReqs {
		tools = append(tools, r.Tool.Name)
	}
	return tools
}

func TestApprovalWhenFalseRunsAtOnce(t *testing.T) {
	h, seen := whenFreeForm(t, `{"amount": 50}`, func(*harness) {})
	require.Empty(t, seen.PendingApprovals)
	require.ElementsMatch(t, []string{"a", "b"}, toolsCalled(h))
	b := nodeByTool(h.trace(), "b")
	require.Equal(t, signals.StatusCompleted, b.Status)
	require.Equal(t, "approval not asked: args.amount > input.limit is false", b.Note)
	require.Empty(t, nodesByKind(h.trace(), signals.KindApproval))
}

func TestApprovalWhenTrueWaitsForAPerson(t *testing.T) {
	var got updateResult
	h, seen := whenFreeForm(t, `{"amount": 5000}`, func(h *harness) {
		h.approve(time.Minute, signals.ApproveRequest{CallID: "n3", Decision: signals.DecisionApprove, Audit: signals.Audit{By: "ops"}}, &got)
	})
	require.NoError(t, got.rejected)
	require.Equal(t, signals.PhaseAwaitingApproval, seen.Phase)
	require.Equal(t, []signals.PendingApproval{{CallID: "n3", Tool: "b", Args: json.RawMessage(`{"amount":5000}`), Since: seen.PendingApprovals[0].Since}}, seen.PendingApprovals)
	require.Equal(t, []string{"a", "b"}, toolsCalled(h), "b ran once approved")
	b := nodeByTool(h.trace(), "b")
	require.Equal(t, signals.StatusCompleted, b.Status)
	require.Equal(t, "approval asked: args.amount > input.limit is true", b.Note)
	require.Len(t, nodesByKind(h.trace(), signals.KindApproval), 1)
}

func TestApprovalWhenNotEvaluatedWaits(t *testing.T) {
	var got updateResult
	// No amount: nil > 1000 cannot be evaluated, so a person decides.
	h, seen := whenFreeForm(t, `{"seat": "12A"}`, func(h *harness) {
		h.approve(time.Minute, signals.ApproveRequest{CallID: "n3", Decision: signals.DecisionReject, Audit: signals.Audit{By: "ops"}}, &got)
	})
	require.NoError(t, got.rejected)
	require.Len(t, seen.PendingApprovals, 1)
	require.Equal(t, []string{"a"}, toolsCalled(h), "rejected, b never ran")
	b := nodeByTool(h.trace(), "b")
	require.Contains(t, b.Note, "approval asked: args.amount > input.limit could not be evaluated (")
	require.Contains(t, b.Note, "so a person decides")
}

// whenGraph walks a one-node graph whose node calls b with args.
func whenGraph(t *testing.T, args map[string]any, decide func(h *harness)) (*harness, signals.Status) {
	spec := whenSpec()
	spec.Agent.Graph = oneNodeGraph("b", args)
	h := newHarness(t, spec, nil, echoTool)
	var seen signals.Status
	h.env.RegisterDelayedCallback(func() { seen = h.status() }, 30*time.Second)
	decide(h)
	res, err := h.run(AgentInput{Agent: "agent", Task: "walk", Input: json.RawMessage(`{"limit": 1000}`)})
	require.NoError(t, err)
	require.NotNil(t, res)
	return h, seen
}

func TestGraphApprovalWhenFalseRunsAtOnce(t *testing.T) {
	h, seen := whenGraph(t, map[string]any{"amount": 50}, func(*harness) {})
	require.Empty(t, seen.PendingApprovals)
	require.Equal(t, []string{"b"}, toolsCalled(h))
	require.Equal(t, "approval not asked: args.amount > input.limit is false", nodeByTool(h.trace(), "b").Note)
}

func TestGraphApprovalWhenTrueWaitsForAPerson(t *testing.T) {
	var got updateResult
	// The node's call is n2 (after the task).
	h, seen := whenGraph(t, map[string]any{"amount": 5000}, func(h *harness) {
		h.approve(time.Minute, signals.ApproveRequest{CallID: "n2", Decision: signals.DecisionApprove, Audit: signals.Audit{By: "ops"}}, &got)
	})
	require.NoError(t, got.rejected)
	require.Len(t, seen.PendingApprovals, 1)
	require.Equal(t, []string{"b"}, toolsCalled(h))
	require.Equal(t, "approval asked: args.amount > input.limit is true", nodeByTool(h.trace(), "b").Note)
}

func TestGraphApprovalWhenNotEvaluatedWaits(t *testing.T) {
	var got updateResult
	h, seen := whenGraph(t, map[string]any{"amount": "a lot"}, func(h *harness) {
		h.approve(time.Minute, signals.ApproveRequest{CallID: "n2", Decision: signals.DecisionApprove, Audit: signals.Audit{By: "ops"}}, &got)
	})
	require.NoError(t, got.rejected)
	require.Len(t, seen.PendingApprovals, 1, "a string compared with a number: a person decides")
	require.Equal(t, []string{"b"}, toolsCalled(h))
	require.Contains(t, nodeByTool(h.trace(), "b").Note, "could not be evaluated")
}

// A fallback keeps its own approval: its condition is evaluated with the
// call's arguments when it would stand in.
func TestAFallbackWithWhenAsksOnlyWhenItHolds(t *testing.T) {
	for _, tc := range []struct {
		amount int
		asks   bool
	}{{50, false}, {5000, true}} {
		spec := fallbackApprovalSpec(config.Approval{When: "args.amount > 1000"}, map[string]any{"amount": tc.amount})
		h := newHarness(t, spec, nil, bFailsTransiently)
		var pending signals.Status
		h.env.RegisterDelayedCallback(func() { pending = h.status() }, 30*time.Second)
		var got updateResult
		// Visit 1 is call n2 (b fails, its breaker opens); visit 2 is n3.
		h.approve(time.Minute, signals.ApproveRequest{CallID: "n3", Decision: signals.DecisionApprove}, &got)
		_, err := h.run(AgentInput{Agent: "agent", Task: "walk"})
		require.NoError(t, err)
		require.Equal(t, []string{"b", "c"}, toolsCalled(h))
		c := nodeByTool(h.trace(), "c")
		if tc.asks {
			require.Len(t, pending.PendingApprovals, 1)
			require.Equal(t, "fallback c: approval asked: args.amount > 1000 is true", c.Note)
		} else {
			require.Empty(t, pending.PendingApprovals)
			require.Equal(t, "fallback c: approval not asked: args.amount > 1000 is false", c.Note)
		}
	}
}
