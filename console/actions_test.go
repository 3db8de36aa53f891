package console

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/signals"
)

// answerOf is the action's answer: its class (ok or rejected) and text.
func answerOf(t *testing.T, w *httptest.ResponseRecorder) (string, string) {
	t.Helper()
	require.Equal(t, http.StatusOK, w.Code, "an answer is always 200, so htmx swaps it in")
	div := parse(t, w.Body.String()).one(t, "div", "class", "answer")
	switch {
	case div.hasClass("ok"):
		return "ok", div.text()
	case div.hasClass("rejected"):
		return "rejected", div.text()
	}
	t.Fatalf("answer without ok or rejected: %s", w.Body.String())
	return "", ""
}

// sent is the request an update carried, as the run receives it.
func sent(t *testing.T, opts client.UpdateWorkflowOptions, into any) {
	t.Helper()
	require.Len(t, opts.Args, 1)
	b, err := json.Marshal(opts.Args[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, into))
}

func TestActionsSendTheUpdateWithThePayload(t *testing.T) {
	tests := []struct {
		name, path string
		form       url.Values
		update     string
		want       any // the request the run receives
		answer     any
		says       string
	}{
		{"approve", "approve", url.Values{"call_id": {"n6"}, "decision": {"approve"}, "args": {`{"seat":"12A"}`}, "by": {"alice"}, "reason": {"fine"}},
			signals.Approve, signals.ApproveRequest{CallID: "n6", Decision: "approve", Audit: signals.Audit{By: "alice", Reason: "fine"}},
			signals.ApproveResult{CallID: "n6", Decision: "approve"}, "call n6 settled (approve)"},
		{"modify", "approve", url.Values{"call_id": {"n6"}, "decision": {"modify"}, "args": {"{\n  \"seat\": \"14C\"\n}"}},
			signals.Approve, signals.ApproveRequest{CallID: "n6", Decision: "modify", Args: json.RawMessage(`{"seat":"14C"}`)},
			signals.ApproveResult{CallID: "n6", Decision: "modify"}, "call n6 settled (modify)"},
		{"reject", "approve", url.Values{"call_id": {"n6"}, "decision": {"reject"}, "reason": {"over budget"}},
			signals.Approve, signals.ApproveRequest{CallID: "n6", Decision: "reject", Audit: signals.Audit{Reason: "over budget"}},
			signals.ApproveResult{CallID: "n6", Decision: "reject"}, "call n6 settled (reject)"},
		{"edit output text", "edit", url.Values{"node_id": {"n2"}, "output": {"Search first."}, "by": {"bob"}},
			signals.Edit, signals.EditRequest{NodeID: "n2", Output: json.RawMessage(`"Search first."`), Audit: signals.Audit{By: "bob"}},
			signals.EditResult{NodeID: "n8", Edited: "n2", Invalidated: []string{"n3", "n4"}, Generation: 2}, "edited n2; invalidated n3, n4; generation 2"},
		{"edit args", "edit", url.Values{"node_id": {"n4"}, "args": {`{"q": "LAX"}`}, "reason": {"typo"}},
			signals.Edit, signals.EditRequest{NodeID: "n4", Args: json.RawMessage(`{"q":"LAX"}`), Audit: signals.Audit{Reason: "typo"}},
			signals.EditResult{NodeID: "n8", Edited: "n4", Generation: 3}, "edited n4; invalidated nothing; generation 3"},
		{"handoff", "handoff", url.Values{"to": {"refunds"}, "note": {"wants a refund"}, "reason": {"policy"}},
			signals.Handoff, signals.HandoffRequest{To: "refunds", Note: "wants a refund", Audit: signals.Audit{Reason: "policy"}},
			signals.HandoffResult{NodeID: "n9", To: "refunds", HandoffPath: []string{"support", "refunds"}}, "handed off to refunds (handoff node n9); path support → refunds"},
		{"budget raise", "budget", url.Values{"decision": {"raise"}, "tool_calls": {"10"}, "cost": {"2.5"}, "wall_time": {"30m"}, "by": {"alice"}},
			signals.Budget, signals.BudgetRequest{Raise: &signals.BudgetRaise{ToolCalls: 10, Cost: 2.5, WallTime: "30m"}, Audit: signals.Audit{By: "alice"}},
			signals.BudgetResult{NodeID: "n11"}, "budget raised: it settles node n11"},
		{"budget raise of a tool", "budget", url.Values{"decision": {"raise"}, "tool_calls_per_tool": {"search=3, book=1"}},
			signals.Budget, signals.BudgetRequest{Raise: &signals.BudgetRaise{ToolCallsPerTool: map[string]int64{"search": 3, "book": 1}}},
			signals.BudgetResult{NodeID: "n11"}, "budget raised: it settles node n11"},
		{"budget stop", "budget", url.Values{"decision": {"stop"}, "tool_calls": {"10"}},
			signals.Budget, signals.BudgetRequest{Stop: true},
			signals.BudgetResult{NodeID: "n11"}, "budget: the run stops (node n11)"},
		{"reply", "reply", url.Values{"text": {"Try the 9am flight."}},
			signals.Reply, signals.ReplyRequest{Text: "Try the 9am flight."},
			signals.ReplyResult{NodeID: "n10"}, "reply accepted: it settles node n10"},
		{"message", "message", url.Values{"text": {"Near the river, please\n"}, "by": {" ana "}},
			signals.Message, signals.MessageRequest{Text: "Near the river, please\n", Audit: signals.Audit{By: "ana"}},
			signals.MessageResult{Queued: 2}, "message taken: 2 waiting to be answered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, h := newTestConsole(t, "")
			var opts client.UpdateWorkflowOptions
			expectUpdate(t, m, &opts, tt.answer, nil)
			class, text := answerOf(t, post(h, "/runs/travel-1/"+tt.path, tt.form))
			require.Equal(t, "ok", class, text)
			require.Equal(t, tt.says, text)
			require.Equal(t, "travel-1", opts.WorkflowID)
			require.Equal(t, tt.update, opts.UpdateName)
			require.Equal(t, client.WorkflowUpdateStageCompleted, opts.WaitForStage)
			wire, err := json.Marshal(tt.want)
			require.NoError(t, err)
			got := map[string]any{}
			sent(t, opts, &got)
			require.JSONEq(t, string(wire), mustMarshal(t, got))
		})
	}
}

func mustMarshal(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestARejectionIsShownAndNothingElseSent(t *testing.T) {
	m, h := newTestConsole(t, "")
	var opts client.UpdateWorkflowOptions
	refusal := errors.New(`call n6 is not waiting for approval (it was settled: approve by alice)`)
	expectUpdate(t, m, &opts, nil, refusal)
	class, text := answerOf(t, post(h, "/runs/travel-1/approve", url.Values{"call_id": {"n6"}, "decision": {"approve"}}))
	require.Equal(t, "rejected", class)
	require.Equal(t, refusal.Error(), text, "the run's refusal, verbatim")
	// mocks.Client fails the test on any other call: one update, nothing else.
}

func TestAFormTheRunWouldRefuseIsNotSent(t *testing.T) {
	tests := []struct {
		name, path string
		form       url.Values
		says       string
	}{
		{"no call", "approve", url.Values{"decision": {"approve"}}, `"call_id" is empty`},
		{"no decision", "approve", url.Values{"call_id": {"n6"}}, `"decision" is ""`},
		{"modify without an object", "approve", url.Values{"call_id": {"n6"}, "decision": {"modify"}, "args": {"[1]"}}, `"args" must be a JSON object`},
		{"edit both", "edit", url.Values{"node_id": {"n4"}, "output": {"x"}, "args": {"{}"}}, "not both"},
		{"edit nothing", "edit", url.Values{"node_id": {"n4"}}, `give "output"`},
		{"handoff to two words", "handoff", url.Values{"to": {"two words"}}, `"to" is "two words"`},
		{"empty reply", "reply", url.Values{"text": {"  "}}, `"text" is empty`},
		{"budget raise of nothing", "budget", url.Values{"decision": {"raise"}}, `budget: give "raise"`},
		{"budget raise not a number", "budget", url.Values{"decision": {"raise"}, "tool_calls": {"ten"}}, `"tool_calls" is "ten", not a whole number`},
		{"budget raise below zero", "budget", url.Values{"decision": {"raise"}, "cost": {"-2"}}, "raise.cost must be a positive amount"},
		{"budget raise of a tool not a count", "budget", url.Values{"decision": {"raise"}, "tool_calls_per_tool": {"search"}}, `"search" is not tool=count`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, h := newTestConsole(t, "") // no update expected: the mock fails on one
			class, text := answerOf(t, post(h, "/runs/travel-1/"+tt.path, tt.form))
			require.Equal(t, "rejected", class)
			require.Contains(t, text, "not sent: ")
			require.Contains(t, text, tt.says)
		})
	}
}
