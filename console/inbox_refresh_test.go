package console

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/mocks"

	"github.com/unstuck-dev/unstuck/signals"
)

// The inbox list refreshes itself, swapped only when the runs waiting
// for a person changed, so typing into a reply box is never lost.

// expectWaiting lists ids, once, as the runs awaiting a person.
func expectWaiting(t *testing.T, m *mocks.Client, ids ...string) {
	var execs []*workflowpb.WorkflowExecutionInfo
	for _, id := range ids {
		execs = append(execs, execution(t, id, "desk", "awaiting_human"))
	}
	m.On("ListWorkflow", anyCtx, mock.MatchedBy(func(r *workflowservice.ListWorkflowExecutionsRequest) bool {
		return r.Query == "WorkflowType = 'AgentWorkflow' AND AgentPhase = 'awaiting_human'"
	})).Return(&workflowservice.ListWorkflowExecutionsResponse{Executions: execs}, nil).Once()
}

// have is the ids the list's poller sends.
func have(t *testing.T, list el) string {
	t.Helper()
	require.Equal(t, "every 2s", list.attr("hx-trigger"))
	require.Equal(t, "outerHTML", list.attr("hx-swap"))
	u, err := url.Parse(list.attr("hx-get"))
	require.NoError(t, err)
	require.Equal(t, "/inbox/items", u.Path)
	return u.Query().Get("have")
}

func TestInboxPollerCarriesTheWaitingRunsSorted(t *testing.T) {
	m, h := newTestConsole(t, "")
	expectWaiting(t, m, "b&c/2", "a-1") // listed out of order; one id to escape
	for _, id := range []string{"b&c/2", "a-1"} {
		expectRun(t, m, id, signals.Status{Agent: "desk", Phase: signals.PhaseAwaitingHuman}, signals.Trace{})
	}
	w := get(h, "/inbox")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	list := parse(t, w.Body.String()).one(t, "div", "id", "inbox")
	require.Equal(t, "a-1,b&c/2", have(t, list))
	item := list.one(t, "article", "data-workflow-id", "b&c/2")
	require.Equal(t, "inbox-item-b_26c_2f2", item.attr("id"), "the id htmx keeps the article by is a plain CSS name")
	require.True(t, hasAttr(item, "hx-preserve"), "a run still waiting keeps its article across a swap")
}

func TestInboxItemsUnchangedAreNoContent(t *testing.T) {
	m, h := newTestConsole(t, "")
	expectWaiting(t, m, "b", "a")
	// No run is loaded: the mock fails any query it was not told of.
	w := get(h, "/inbox/items?have=a%2Cb")
	require.Equal(t, http.StatusNoContent, w.Code)
	require.Empty(t, w.Body.String())
}

func TestInboxItemsChangedAreTheNewList(t *testing.T) {
	m, h := newTestConsole(t, "")
	expectWaiting(t, m, "b", "c") // a was answered, c is new
	for _, id := range []string{"b", "c"} {
		expectRun(t, m, id, signals.Status{Agent: "desk", Phase: signals.PhaseAwaitingHuman}, signals.Trace{})
	}
	w := get(h, "/inbox/items?have=a%2Cb")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	list := parse(t, w.Body.String()).one(t, "div", "id", "inbox")
	require.Equal(t, "b,c", have(t, list))
	items := list.all("article", "class", "inbox-item")
	require.Len(t, items, 2)
	require.Equal(t, "b", items[0].attr("data-workflow-id"))
	require.Equal(t, "c", items[1].attr("data-workflow-id"))
	form := items[1].one(t, "form", "class", "reply-form")
	require.Equal(t, "/runs/c/reply", form.attr("hx-post"))
	form.one(t, "textarea", "name", "text")
	target := items[1].one(t, "div", "class", "reply-answer")
	require.Equal(t, "#"+target.attr("id"), form.attr("hx-target"), "the answer lands inside the article")
}

func TestInboxItemsLastAnsweredIsTheEmptyList(t *testing.T) {
	m, h := newTestConsole(t, "")
	expectWaiting(t, m)
	w := get(h, "/inbox/items?have=a")
	require.Equal(t, http.StatusOK, w.Code)
	list := parse(t, w.Body.String()).one(t, "div", "id", "inbox")
	require.Empty(t, have(t, list))
	require.Empty(t, list.all("article", "class", "inbox-item"))
	list.one(t, "p", "class", "none")
}

func hasAttr(e el, name string) bool {
	for _, a := range e.n.Attr {
		if a.Key == name {
			return true
		}
	}
	return false
}
