package workflows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// Approvals with the tools mocked and time skipped: the call waits, other
// calls of the step go on, and each decision does what docs/contract.md says.

func approvalSpec() *config.Resolved {
	spec := echoSpec()
	for i := range spec.Tools {
		if spec.Tools[i].Name == "b" {
			spec.Tools[i].Approval = config.ApprovalAlways
			spec.Tools[i].Effect = config.EffectWrite
		}
	}
	spec.Agent.Policies.HumanTimeout = config.Duration(time.Hour)
	return spec
}

func (h *harness) approve(after time.Duration, req signals.ApproveRequest, got *updateResult) {
	h.env.RegisterDelayedCallback(func() {
		h.env.UpdateWorkflow(signals.Approve, "approve-"+req.CallID+"-"+after.String(), &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { got.rejected = err },
			OnAccept:   func() {},
			OnComplete: func(v any, err error) { got.result, got.err = v, err },
		}, req)
	}, after)
}

func (h *harness) status() signals.Status {
	v, err := h.env.QueryWorkflow(signals.QueryStatus)
	require.NoError(h.t, err)
	var st signals.Status
	require.NoError(h.t, v.Get(&st))
	return st
}

// The call of b is n3 (task n1, request n2, then the calls in order).
func approvalRun(t *testing.T, decide func(h *harness)) (*harness, *AgentResult, error) {
	h := newHarness(t, approvalSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "b", `{"seat": "12A"}`), call("k2", "a", `{"q": 1}`)}},
		{Content: "done"},
	}, echoTool)
	decide(h)
	res, err := h.run(AgentInput{Agent: "agent", Task: "book"})
	return h, res, err
}

func TestApprovedCallRunsWhileOthersDidNotWait(t *testing.T) {
	var seen signals.Status
	var got updateResult
	h, _, err := approvalRun(t, func(h *harness) {
		h.env.RegisterDelayedCallback(func() { seen = h.status() }, time.Minute)
		h.approve(2*time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "approve", Audit: signals.Audit{By: "ops"}}, &got)
	})
	require.NoError(t, err)
	require.NoError(t, got.rejected)
	require.Equal(t, signals.PhaseAwaitingApproval, seen.Phase)
	require.Equal(t, []signals.PendingApproval{{CallID: "n3", Tool: "b", Args: json.RawMessage(`{"seat":"12A"}`), Since: seen.PendingApprovals[0].Since}}, seen.PendingApprovals)
	require.False(t, seen.PendingApprovals[0].Since.IsZero(), "a waiting call says since when")
	require.Equal(t, "a", h.toolReqs[0].Tool.Name, "the call without approval did not wait")
	require.Equal(t, "b", h.toolReqs[1].Tool.Name)
	require.Equal(t, signals.StatusCompleted, nodeByTool(h.trace(), "b").Status)
	require.Len(t, nodesByKind(h.trace(), signals.KindApproval), 1)
}

func TestRejectedCallNeverRunsAndTheModelHearsWhy(t *testing.T) {
	var got updateResult
	h, _, err := approvalRun(t, func(h *harness) {
		h.approve(time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "reject", Audit: signals.Audit{By: "alice", Reason: "wrong seat"}}, &got)
	})
	require.NoError(t, err)
	require.Len(t, h.toolReqs, 1)
	require.Contains(t, h.requests[1].Delta[0].Content, "rejected by alice: wrong seat")
}

func TestModifiedAndReplacedCallsRunAsDecided(t *testing.T) {
	var got updateResult
	h, _, err := approvalRun(t, func(h *harness) {
		h.approve(time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "modify", Args: json.RawMessage(`{"seat": "14C"}`)}, &got)
	})
	require.NoError(t, err)
	require.JSONEq(t, `{"seat":"14C"}`, string(h.toolReqs[1].Args))

	h, _, err = approvalRun(t, func(h *harness) {
		h.approve(time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "replace",
			Call: &signals.ReplacementCall{Tool: "c", Args: json.RawMessage(`{"waitlist": true}`)}}, &got)
	})
	require.NoError(t, err)
	require.Equal(t, "c", h.toolReqs[1].Tool.Name)
	require.JSONEq(t, `{"waitlist":true}`, string(h.toolReqs[1].Args))
}

func TestApprovalTimesOutAndBadDecisionsAreRejected(t *testing.T) {
	var unknown, bad updateResult
	h, _, err := approvalRun(t, func(h *harness) {
		h.approve(time.Minute, signals.ApproveRequest{CallID: "n99", Decision: "approve"}, &unknown)
		h.approve(2*time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "modify"}, &bad)
	})
	require.NoError(t, err)
	require.ErrorContains(t, unknown.rejected, `"n99" is not a call of this run`)
	require.ErrorContains(t, bad.rejected, `"modify" needs "args"`)
	require.Len(t, h.toolReqs, 1, "no decision within human_timeout: the call never runs")
	require.Contains(t, h.requests[1].Delta[0].Content, "no approval decision within human_timeout (1h0m0s)")
}

func TestABadModificationIsRefusedAndTheCallKeepsWaiting(t *testing.T) {
	spec := approvalSpec()
	for i := range spec.Tools {
		if spec.Tools[i].Name == "b" {
			spec.Tools[i].Parameters = map[string]any{"type": "object", "properties": map[string]any{"seat": map[string]any{"type": "string"}}}
		}
	}
	h := newHarness(t, spec, []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "b", `{"seat": "12A"}`)}},
		{Content: "done"},
	}, echoTool)
	var bad, good updateResult
	h.approve(time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "modify", Args: json.RawMessage(`{"seat": 14}`)}, &bad)
	h.approve(2*time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "modify", Args: json.RawMessage(`{"seat": "14C"}`), Audit: signals.Audit{By: "alice"}}, &good)
	_, err := h.run(AgentInput{Agent: "agent", Task: "book"})
	require.NoError(t, err)
	require.ErrorContains(t, bad.rejected, "at /seat")
	require.NoError(t, good.rejected)
	require.JSONEq(t, `{"seat":"14C"}`, string(h.toolReqs[0].Args))
	// The model learns that a person changed its call.
	msg := h.requests[1].Delta[0].Content
	require.Contains(t, msg, "changed_by_a_person")
	require.Contains(t, msg, "alice")
}

func TestAnApprovedCallIsNotRepairedBehindThePersonsBack(t *testing.T) {
	h := newHarness(t, approvalSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "b", `{"seat": "12A"}`)}},
		{Content: "done"},
	}, func(req activities.ToolRequest) (json.RawMessage, error) {
		return nil, temporal.NewNonRetryableApplicationError("tool b: HTTP 422: value for 'seat' must be one of [1A, 2A]", "invalid_args", nil)
	})
	h.repairModel = func(activities.RepairRequest) (json.RawMessage, error) { return json.RawMessage(`{"seat": "1A"}`), nil }
	var got updateResult
	h.approve(time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "approve"}, &got)
	_, err := h.run(AgentInput{Agent: "agent", Task: "book"})
	require.NoError(t, err)
	require.Len(t, h.toolReqs, 1, "refused arguments a person approved are not re-issued repaired")
	require.Empty(t, h.repairReqs)
}
