package console

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

func TestInboxShowsTheHandoffContextAndAReplyBox(t *testing.T) {
	m, h := newTestConsole(t, "")
	m.On("ListWorkflow", anyCtx, mock.MatchedBy(func(r *workflowservice.ListWorkflowExecutionsRequest) bool {
		return r.Query == "WorkflowType = 'AgentWorkflow' AND AgentPhase = 'awaiting_human'"
	})).Return(&workflowservice.ListWorkflowExecutionsResponse{Executions: []*workflowpb.WorkflowExecutionInfo{
		execution(t, "support-1", "desk", "awaiting_human"),
	}}, nil).Once()
	hc := workflows.HandoffContext{SourceAgent: "orders", Reason: "tool_failure", InitialQuery: "where is order 7?",
		CurrentProblem: "the order API is down", SuggestedAction: "call the warehouse",
		Conversation: []activities.Message{
			{Role: "system", Content: "You are orders."},
			{Role: "user", Content: "where is order 7?"},
			{Role: "assistant", ToolCalls: []activities.ToolCall{{Name: "lookup", Args: `{"order":7}`}}},
		}}
	out, err := json.Marshal(hc)
	require.NoError(t, err)
	expectRun(t, m, "support-1", signals.Status{Agent: "desk", Phase: signals.PhaseAwaitingHuman}, signals.Trace{Nodes: []signals.Node{
		{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted, Args: json.RawMessage(`{"task":"where is order 7?"}`)},
		{ID: "n5", Kind: signals.KindHandoff, Status: signals.StatusCompleted, Parents: []string{"n1"}, From: "orders", To: "desk", Output: out},
	}})

	w := get(h, "/inbox")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	page := parse(t, w.Body.String())
	item := page.one(t, "article", "class", "inbox-item")
	require.Equal(t, "support-1", item.attr("data-workflow-id"))
	require.Equal(t, "orders", item.one(t, "dd", "class", "from").text())
	require.Equal(t, "tool_failure", item.one(t, "dd", "class", "reason").text())
	require.Equal(t, "the order API is down", item.one(t, "dd", "class", "summary").text())
	require.Equal(t, "call the warehouse", item.one(t, "dd", "class", "suggested").text())
	msgs := item.all("div", "class", "msg")
	require.Len(t, msgs, 2, "the system prompt is left out")
	require.Equal(t, "user: where is order 7?", msgs[0].text())
	require.Contains(t, msgs[1].text(), `lookup({"order":7})`)
	form := item.one(t, "form", "class", "reply-form")
	require.Equal(t, "/runs/support-1/reply", form.attr("hx-post"))
	form.one(t, "textarea", "name", "text")
	target := item.one(t, "div", "class", "reply-answer")
	require.Equal(t, "#"+target.attr("id"), form.attr("hx-target"), "the answer lands inside the article")
	page.one(t, "nav").one(t, "a", "href", "/inbox")
}

func TestInboxOfAnAgentThatAskedAPerson(t *testing.T) {
	m, h := newTestConsole(t, "")
	m.On("ListWorkflow", anyCtx, mock.Anything).Return(&workflowservice.ListWorkflowExecutionsResponse{Executions: []*workflowpb.WorkflowExecutionInfo{
		execution(t, "travel-2", "travel", "awaiting_human"),
	}}, nil).Once()
	expectRun(t, m, "travel-2", signals.Status{Agent: "travel", Phase: signals.PhaseAwaitingHuman}, signals.Trace{Nodes: []signals.Node{
		{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted, Args: json.RawMessage(`{"task":"book a flight"}`)},
		{ID: "n2", Kind: signals.KindHuman, Status: signals.StatusRunning, Parents: []string{"n1"}, Args: json.RawMessage(`{"why":"which date?"}`)},
	}})
	item := parse(t, get(h, "/inbox").Body.String()).one(t, "article", "class", "inbox-item")
	require.Equal(t, "book a flight", item.one(t, "dd", "class", "task").text())
	require.Equal(t, "which date?", item.one(t, "dd", "class", "question").text())
}

// The inbox reads its runs side by side: a run whose worker is down (its
// query answers only when it times out) does not hold up the others. Here
// the first run answers only once the second has been asked.
func TestInboxReadsItsRunsSideBySide(t *testing.T) {
	m, h := newTestConsole(t, "")
	m.On("ListWorkflow", anyCtx, mock.Anything).Return(&workflowservice.ListWorkflowExecutionsResponse{Executions: []*workflowpb.WorkflowExecutionInfo{
		execution(t, "slow-1", "desk", "awaiting_human"), execution(t, "quick-2", "desk", "awaiting_human"),
	}}, nil).Once()
	asked := make(chan struct{})
	var once sync.Once
	var waitedOut atomic.Bool
	status := signals.Status{Agent: "desk", Phase: signals.PhaseAwaitingHuman}
	trace := func(task string) signals.Trace {
		return signals.Trace{Nodes: []signals.Node{{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted, Args: json.RawMessage(`{"task":"` + task + `"}`)}}}
	}
	m.On("QueryWorkflow", anyCtx, "slow-1", "", signals.QueryStatus).Run(func(args mock.Arguments) {
		select {
		case <-asked:
		case <-args.Get(0).(context.Context).Done():
			waitedOut.Store(true)
		}
	}).Return(mustJSON(t, status), nil).Once()
	m.On("QueryWorkflow", anyCtx, "slow-1", "", signals.QueryTrace).Return(mustJSON(t, trace("slow task")), nil).Once()
	m.On("QueryWorkflow", anyCtx, "quick-2", "", signals.QueryStatus).Run(func(mock.Arguments) { once.Do(func() { close(asked) }) }).
		Return(mustJSON(t, status), nil).Once()
	m.On("QueryWorkflow", anyCtx, "quick-2", "", signals.QueryTrace).Return(mustJSON(t, trace("quick task")), nil).Once()

	page := parse(t, get(h, "/inbox").Body.String())
	items := page.all("article", "class", "inbox-item")
	require.Len(t, items, 2)
	require.Equal(t, "slow-1", items[0].attr("data-workflow-id"), "the listing's order is kept")
	require.Equal(t, "slow task", items[0].one(t, "dd", "class", "task").text(), "the first run answered once the second was asked")
	require.Equal(t, "quick task", items[1].one(t, "dd", "class", "task").text())
	require.False(t, waitedOut.Load(), "the first run's query waited for the second's, one after the other")
}
