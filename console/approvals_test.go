package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"

	"github.com/unstuck-dev/unstuck/approvalinbox"
	"github.com/unstuck-dev/unstuck/signals"
)

// expectApprovalsWaiting lists runs as waiting for approval and answers each one's
// status with one call waiting of tool pay, its arguments args[id], since
// waited[id] ago.
func expectApprovalsWaiting(t *testing.T, m *mocks.Client, args map[string]string, waited map[string]time.Duration) {
	var execs []*workflowpb.WorkflowExecutionInfo
	for id := range args {
		execs = append(execs, execution(t, id, "pay-agent", "awaiting_approval"))
	}
	m.On("ListWorkflow", anyCtx, mock.MatchedBy(func(r *workflowservice.ListWorkflowExecutionsRequest) bool {
		return r.Query == approvalinbox.Query(approvalinbox.Filter{})
	})).Return(&workflowservice.ListWorkflowExecutionsResponse{Executions: execs}, nil)
	expectReplies(m)
	for id, a := range args {
		m.On("QueryWorkflow", anyCtx, id, "", signals.QueryStatus).Return(mustJSON(t, signals.Status{
			Agent: "pay-agent", Phase: signals.PhaseAwaitingApproval,
			PendingApprovals: []signals.PendingApproval{{CallID: "n3", Tool: "pay", Args: json.RawMessage(a), WaitingSince: testNow.Add(-waited[id])}},
		}), nil)
	}
}

// expectReplies lists execs as the runs waiting for a reply (none when
// not given).
func expectReplies(m *mocks.Client, execs ...*workflowpb.WorkflowExecutionInfo) {
	m.On("ListWorkflow", anyCtx, mock.MatchedBy(func(r *workflowservice.ListWorkflowExecutionsRequest) bool {
		return r.Query == approvalinbox.ReplyQuery(approvalinbox.Filter{})
	})).Return(&workflowservice.ListWorkflowExecutionsResponse{Executions: execs}, nil).Maybe() // a group's answer lists no replies
}

// approvalsListed lists execs as the runs waiting for approval.
func approvalsListed(m *mocks.Client, execs ...*workflowpb.WorkflowExecutionInfo) {
	m.On("ListWorkflow", anyCtx, mock.MatchedBy(func(r *workflowservice.ListWorkflowExecutionsRequest) bool {
		return r.Query == approvalinbox.Query(approvalinbox.Filter{})
	})).Return(&workflowservice.ListWorkflowExecutionsResponse{Executions: execs}, nil)
}

// The page lists the runs waiting for a reply below the calls: who may
// answer now, how long it waited, overdue past half its timeout.
func TestApprovalsListsTheRunsWaitingForAReply(t *testing.T) {
	m, h := newTestConsole(t, "")
	approvalsListed(m)
	expectReplies(m, execution(t, "ops-1", "ops-agent", "awaiting_human"), execution(t, "ops-2", "ops-agent", "awaiting_human"))
	m.On("QueryWorkflow", anyCtx, "ops-1", "", signals.QueryStatus).Return(mustJSON(t, signals.Status{Agent: "ops-agent", Phase: signals.PhaseAwaitingHuman,
		PendingReply: &signals.PendingReply{NodeID: "n4", Why: "graph node H", GraphNode: "H", WaitingSince: testNow.Add(-90 * time.Minute),
			Deadline: testNow.Add(30 * time.Minute), Answering: []string{"ops", "finance"}, Escalations: 1}}), nil)
	m.On("QueryWorkflow", anyCtx, "ops-2", "", signals.QueryStatus).Return(mustJSON(t, signals.Status{Agent: "ops-agent", Phase: signals.PhaseAwaitingHuman,
		PendingReply: &signals.PendingReply{NodeID: "n9", Why: "the agent is stuck in a loop: <b>x</b>", WaitingSince: testNow.Add(-time.Minute)}}), nil)

	page := parse(t, get(h, "/approvals").Body.String())
	rows := page.all("tr", "class", "reply-wait")
	require.Len(t, rows, 2)
	require.Equal(t, "ops-1", rows[0].attr("data-workflow-id"), "the longest wait first")
	require.Equal(t, "n4", rows[0].attr("data-node"))
	require.Equal(t, "ops, finance", rows[0].one(t, "td", "class", "answering").text())
	rows[0].one(t, "strong", "class", "overdue")
	require.Equal(t, "anyone", rows[1].one(t, "td", "class", "answering").text())
	require.Contains(t, get(h, "/approvals").Body.String(), "&lt;b&gt;x&lt;/b&gt;", "escaped")
	page.one(t, "p", "class", "none")
}

func TestApprovalsGroupsTheFleetsCallsByToolAndShape(t *testing.T) {
	m, h := newTestConsole(t, "")
	expectApprovalsWaiting(t, m, map[string]string{"pay-1": `{"amount": 5, "to": "a"}`, "pay-2": `{"to": "b", "amount": 9}`, "pay-3": `{"amount": "9"}`},
		map[string]time.Duration{"pay-1": 3 * time.Minute, "pay-2": 90 * time.Minute, "pay-3": 10 * time.Second})

	w := get(h, "/approvals")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	page := parse(t, w.Body.String())
	groups := page.all("section", "class", "approval-group")
	require.Len(t, groups, 2)
	first := groups[0]
	require.Equal(t, approvalinbox.GroupID("pay", "{amount: number, to: string}"), first.attr("data-group-id"), "the longest wait first")
	require.Equal(t, "2", first.attr("data-count"))
	require.Equal(t, "{amount: number, to: string}", first.one(t, "span", "class", "shape").text())
	require.Equal(t, "1h", first.one(t, "span", "class", "oldest").text())
	calls := first.all("tr", "class", "group-call")
	require.Equal(t, "pay-2/n3", calls[0].attr("data-ref"), "in a group the longest wait first")
	require.Equal(t, "pay-1/n3", calls[1].attr("data-ref"))
	form := first.one(t, "form", "class", "group-form")
	require.Equal(t, "/approvals/answer", form.attr("hx-post"))
	require.Len(t, form.all("input", "name", "call"), 2, "a box to tick for each call")
	require.Equal(t, "1", groups[1].attr("data-count"))
	require.Equal(t, "10s", groups[1].one(t, "span", "class", "oldest").text())
	page.one(t, "nav").one(t, "a", "href", "/approvals")
}

func TestApprovalsRefusesAFilterItCannotQuote(t *testing.T) {
	_, h := newTestConsole(t, "")
	w := get(h, "/approvals?agent="+url.QueryEscape("a' OR 1=1"))
	require.Equal(t, http.StatusBadRequest, w.Code)
	require.Contains(t, parse(t, w.Body.String()).one(t, "p", "class", "error").text(), "is not a name")
}

// updatesSent records every approve update, answering each.
func updatesSent(t *testing.T, m *mocks.Client) func() map[string]signals.ApproveRequest {
	var mu sync.Mutex
	got := map[string]signals.ApproveRequest{}
	handle := mocks.NewWorkflowUpdateHandle(t)
	handle.On("Get", mock.Anything, mock.Anything).Return(nil)
	m.On("UpdateWorkflow", anyCtx, mock.Anything).Run(func(args mock.Arguments) {
		opts := args.Get(1).(client.UpdateWorkflowOptions)
		var req signals.ApproveRequest
		sent(t, opts, &req)
		mu.Lock()
		got[opts.WorkflowID] = req
		mu.Unlock()
	}).Return(handle, nil)
	return func() map[string]signals.ApproveRequest {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

func TestApprovingAGroupSendsEachRunItsOwnApproval(t *testing.T) {
	m, h := newTestConsole(t, "")
	expectApprovalsWaiting(t, m, map[string]string{"pay-1": `{"amount": 5}`, "pay-2": `{"amount": 9}`, "pay-3": `{"memo": "x"}`}, nil)
	got := updatesSent(t, m)
	group := approvalinbox.GroupID("pay", "{amount: number}")

	status, text := answerOf(t, post(h, "/approvals/answer", url.Values{"group": {group}, "decision": {"approve"}, "by": {"ana"}}))
	require.Equal(t, "ok", status, text)
	require.Contains(t, text, "2 approved, 0 skipped, 0 failed")
	sentTo := got()
	ids := make([]string, 0, len(sentTo))
	for id, req := range sentTo {
		ids = append(ids, id)
		require.Equal(t, signals.ApproveRequest{CallID: "n3", Decision: "approve",
			Audit: signals.Audit{By: "ana", Reason: "group " + group + " approved by ana"}}, req)
	}
	sort.Strings(ids)
	require.Equal(t, []string{"pay-1", "pay-2"}, ids, "the other shape's call is not in the group")
}

func TestRejectingTickedCallsSkipsOneNoLongerWaiting(t *testing.T) {
	m, h := newTestConsole(t, "")
	expectApprovalsWaiting(t, m, map[string]string{"pay-1": `{"amount": 5}`, "pay-2": `{"amount": 9}`}, nil)
	got := updatesSent(t, m)
	group := approvalinbox.GroupID("pay", "{amount: number}")

	status, text := answerOf(t, post(h, "/approvals/answer", url.Values{"group": {group}, "decision": {"reject"}, "by": {"ana"},
		"reason": {"too much"}, "call": {"pay-2/n3", "pay-9/n3"}}))
	require.Equal(t, "ok", status, text)
	require.Contains(t, text, "1 rejected, 1 skipped, 0 failed")
	require.Contains(t, text, "skipped pay-9/n3: no longer waits in the group")
	require.Equal(t, map[string]signals.ApproveRequest{"pay-2": {CallID: "n3", Decision: "reject",
		Audit: signals.Audit{By: "ana", Reason: "group " + group + " rejected by ana: too much"}}}, got())
}

func TestAnUnknownGroupIsRefusedAndNothingIsSent(t *testing.T) {
	m, h := newTestConsole(t, "")
	expectApprovalsWaiting(t, m, map[string]string{"pay-1": `{"amount": 5}`}, nil)
	status, text := answerOf(t, post(h, "/approvals/answer", url.Values{"group": {"0123456789"}, "decision": {"approve"}, "by": {"ana"}}))
	require.Equal(t, "rejected", status)
	require.Contains(t, text, "no call waits in group 0123456789")
	m.AssertNotCalled(t, "UpdateWorkflow", anyCtx, mock.Anything)

	status, text = answerOf(t, post(h, "/approvals/answer", url.Values{"group": {"0123456789"}, "decision": {"modify"}}))
	require.Equal(t, "rejected", status)
	require.Contains(t, text, `decision "modify": a group takes approve or reject`)
	require.Contains(t, text, "by is empty")
}

// A run whose status does not answer is named on the page, and a group
// answer that could not read it says so and is not OK: it may hold calls
// of the group.
func TestARunNotReadIsNamedNotDropped(t *testing.T) {
	m, h := newTestConsole(t, "")
	approvalsListed(m, execution(t, "pay-1", "pay-agent", "awaiting_approval"), execution(t, "pay-2", "pay-agent", "awaiting_approval"))
	expectReplies(m)
	m.On("QueryWorkflow", anyCtx, "pay-1", "", signals.QueryStatus).Return(mustJSON(t, signals.Status{
		PendingApprovals: []signals.PendingApproval{{CallID: "n3", Tool: "pay", Args: json.RawMessage(`{"amount": 5}`), WaitingSince: testNow}},
	}), nil)
	m.On("QueryWorkflow", anyCtx, "pay-2", "", signals.QueryStatus).Return(nil, errors.New("query timed out before a worker could process it"))
	got := updatesSent(t, m)

	page := parse(t, get(h, "/approvals").Body.String())
	require.Equal(t, "pay-2", page.one(t, "p", "class", "unread").attr("data-workflow-id"))
	require.Len(t, page.all("section", "class", "approval-group"), 1)

	status, text := answerOf(t, post(h, "/approvals/answer", url.Values{"group": {approvalinbox.GroupID("pay", "{amount: number}")}, "decision": {"approve"}, "by": {"ana"}}))
	require.Equal(t, "rejected", status, text)
	require.Contains(t, text, "1 approved, 0 skipped, 0 failed; not read (may hold calls of the group; answer again): pay-2")
	require.Len(t, got(), 1)
}

// Runs that list their calls waiting in their memo are read from the
// listing alone: no status query is asked (the mock would refuse one).
func TestApprovalsReadsTheRunsMemosWithoutAQuery(t *testing.T) {
	m, h := newTestConsole(t, "")
	var execs []*workflowpb.WorkflowExecutionInfo
	for i, amount := range []string{`{"amount": 5}`, `{"amount": 9}`} {
		e := execution(t, fmt.Sprint("pay-", i), "pay-agent", "awaiting_approval")
		memo, err := converter.GetDefaultDataConverter().ToPayload(signals.WaitingMemo{Calls: []signals.WaitingCall{
			{CallID: "n3", Tool: "pay", Shape: "{amount: number}", Args: json.RawMessage(amount), Since: testNow.Add(-time.Duration(i+1) * time.Minute)},
		}})
		require.NoError(t, err)
		e.Memo = &commonpb.Memo{Fields: map[string]*commonpb.Payload{signals.MemoWaiting: memo}}
		execs = append(execs, e)
	}
	approvalsListed(m, execs...)
	expectReplies(m)

	page := parse(t, get(h, "/approvals").Body.String())
	group := page.one(t, "section", "class", "approval-group")
	require.Equal(t, approvalinbox.GroupID("pay", "{amount: number}"), group.attr("data-group-id"))
	require.Equal(t, "2", group.attr("data-count"))
	require.Equal(t, "pay-1/n3", group.all("tr", "class", "group-call")[0].attr("data-ref"), "the longest wait first")
	m.AssertNotCalled(t, "QueryWorkflow", anyCtx, mock.Anything, mock.Anything, mock.Anything)
}
