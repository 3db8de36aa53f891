package console

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

// sampleRun is a run waiting for approval of n3, after an edit that
// invalidated n2 and a loop found at n5.
func sampleRun() (signals.Status, signals.Trace) {
	st := signals.Status{Agent: "travel", Phase: signals.PhaseAwaitingApproval, Step: 3, Generation: 2,
		PendingApprovals: []signals.PendingApproval{{CallID: "n6", Tool: "book", Args: json.RawMessage(`{"seat":"12A"}`)}},
		Loops:            []signals.Loop{{At: "n5", Kind: "tool_repeat", Cycle: []string{"search"}, Repeats: 3}},
		Breakers:         map[string]string{"search": "open"},
		HandoffPath:      []string{"travel"},
		Spend: &signals.SpendStatus{ModelRequests: 3, InputTokens: 900, OutputTokens: 40, ToolCalls: 4, Cost: 0.0123, Currency: "USD",
			Limits: map[string]any{"cost": 0.05}},
	}
	tr := signals.Trace{Generation: 2, Nodes: []signals.Node{
		{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted, Parents: []string{}},
		{ID: "n2", Kind: signals.KindRequest, Status: signals.StatusInvalidated, Parents: []string{"n1"}},
		{ID: "n3", Kind: signals.KindRequest, Status: signals.StatusCompleted, Parents: []string{"n1"}},
		{ID: "n4", Kind: signals.KindCall, Status: signals.StatusCompleted, Parents: []string{"n3"}, Tool: "search"},
		{ID: "n5", Kind: signals.KindCall, Status: signals.StatusFailed, Parents: []string{"n4"}, Tool: "search", Error: "boom"},
		{ID: "n6", Kind: signals.KindCall, Status: signals.StatusAwaitingApproval, Parents: []string{"n5"}, Tool: "book", Args: json.RawMessage(`{"seat":"12A"}`)},
		{ID: "n7", Kind: signals.KindEscalation, Status: signals.StatusCompleted, Parents: []string{"n5"}},
	}}
	return st, tr
}

func TestRunPageRendersStatusGraphAndForms(t *testing.T) {
	m, h := newTestConsole(t, "")
	st, tr := sampleRun()
	expectRun(t, m, "travel-1", st, tr)

	w := get(h, "/runs/travel-1")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	page := parse(t, w.Body.String())

	live := page.one(t, "div", "id", "live")
	require.Equal(t, "/runs/travel-1/live", live.attr("hx-get"))
	require.Equal(t, "every 2s", live.attr("hx-trigger"))
	status := live.one(t, "section", "id", "run-status")
	require.Equal(t, "awaiting_approval", status.attr("data-phase"))
	require.Equal(t, "travel", status.attr("data-agent"))
	require.Equal(t, "2", status.attr("data-generation"))
	require.Contains(t, status.text(), "search: open", "the breakers")
	require.Contains(t, status.one(t, "li", "class", "escalation").attr("data-node-id"), "n7")
	spend := status.one(t, "dd", "class", "spend")
	require.Equal(t, "4", spend.attr("data-tool-calls"))
	require.Contains(t, spend.text(), "0.0123 USD (limits: cost 0.05 )")
	require.Empty(t, page.all("form", "id", "budget-form"), "no budget rung waits: a decision would be refused")

	graph := live.one(t, "section", "id", "graph")
	svg := graph.one(t, "svg")
	nodes := svg.all("g", "class", "node")
	require.Len(t, nodes, len(tr.Nodes))
	for i, n := range tr.Nodes {
		g := nodes[i]
		require.Equal(t, "node-"+n.ID, g.attr("id"))
		require.Equal(t, n.ID, g.attr("data-node-id"))
		require.Equal(t, string(n.Kind), g.attr("data-kind"))
		require.Equal(t, string(n.Status), g.attr("data-status"))
		require.Contains(t, g.text(), n.ID+" "+string(n.Kind))
		require.Contains(t, g.text(), n.Tool)
	}
	invalidated := svg.one(t, "g", "class", "invalidated")
	require.Equal(t, "n2", invalidated.attr("data-node-id"))
	require.Equal(t, "invalidated", invalidated.attr("data-status"))
	require.Len(t, svg.all("path", "class", "edge"), 7, "one edge per parent, and the loop edge")
	loop := svg.one(t, "path", "class", "loop")
	require.Equal(t, "n5", loop.attr("data-from"))
	require.Equal(t, "n4", loop.attr("data-to"), "back to where the repeats began")
	require.True(t, svg.one(t, "g", "id", "node-n5").hasClass("loop"))

	// The forms are outside the live part, so a refresh never eats typing.
	require.Empty(t, live.all("form"))
	approval := page.one(t, "form", "class", "approval")
	require.Equal(t, "n6", approval.attr("data-call-id"))
	require.Equal(t, "/runs/travel-1/approve", approval.attr("hx-post"))
	require.Equal(t, "#answer", approval.attr("hx-target"))
	require.Equal(t, "n6", approval.one(t, "input", "name", "call_id").attr("value"))
	require.JSONEq(t, `{"seat":"12A"}`, approval.one(t, "textarea", "name", "args").text())
	approval.one(t, "input", "name", "reason")
	approval.one(t, "input", "name", "by")
	for _, d := range []string{"approve", "modify", "reject"} {
		approval.one(t, "button", "name", "decision", "value", d)
	}
	page.one(t, "div", "id", "answer")

	edit := page.one(t, "form", "id", "edit-form")
	require.Equal(t, "/runs/travel-1/edit", edit.attr("hx-post"))
	var editable []string
	for _, o := range edit.one(t, "select", "name", "node_id").all("option") {
		editable = append(editable, o.attr("value"))
	}
	require.Equal(t, []string{"n1", "n3", "n4", "n5", "n6"}, editable, "not the invalidated n2 nor the escalation")
	edit.one(t, "textarea", "name", "output")
	edit.one(t, "textarea", "name", "args")
	edit.one(t, "button", "type", "submit")
	handoff := page.one(t, "form", "id", "handoff-form")
	require.Equal(t, "/runs/travel-1/handoff", handoff.attr("hx-post"))
	for _, name := range []string{"to", "reason", "note"} {
		handoff.one(t, "input", "name", name)
	}
}

func TestRunLiveIsTheStatusAndGraphAlone(t *testing.T) {
	m, h := newTestConsole(t, "")
	st, tr := sampleRun()
	expectRun(t, m, "travel-1", st, tr)
	w := get(h, "/runs/travel-1/live")
	require.Equal(t, http.StatusOK, w.Code)
	page := parse(t, w.Body.String())
	page.one(t, "section", "id", "run-status")
	page.one(t, "section", "id", "graph")
	require.Empty(t, page.all("form"))
	require.Empty(t, page.all("nav"))
}

// A run waiting out an outage says what is down, since when and the next
// probe; a run that waits out none has no such line.
func TestRunPageShowsTheOutageARunWaitsOut(t *testing.T) {
	m, h := newTestConsole(t, "")
	st, tr := sampleRun()
	st.Phase, st.PendingApprovals = signals.PhaseWaitingOutage, nil
	st.Outage = &signals.OutageStatus{Of: "search", Since: testNow.Add(-4 * time.Minute), NextProbe: testNow.Add(20 * time.Second)}
	expectRun(t, m, "travel-1", st, tr)
	_, plain := sampleRun()
	expectRun(t, m, "travel-2", signals.Status{Agent: "travel", Phase: signals.PhaseRunning}, plain)

	status := parse(t, get(h, "/runs/travel-1/live").Body.String()).one(t, "section", "id", "run-status")
	require.Equal(t, "waiting_outage", status.attr("data-phase"))
	outage := status.one(t, "dd", "class", "outage")
	require.Equal(t, "search", outage.attr("data-of"))
	require.Equal(t, "search down since 2024-01-15T09:26:00Z (4m0s), next probe 2024-01-15T09:30:20Z (in 20s)", outage.text())

	status = parse(t, get(h, "/runs/travel-2/live").Body.String()).one(t, "section", "id", "run-status")
	require.Empty(t, status.all("dd", "class", "outage"))
}

func TestRunPageOfAnUnknownRun(t *testing.T) {
	m, h := newTestConsole(t, "")
	m.On("QueryWorkflow", anyCtx, "nope", "", signals.QueryStatus).Return(nil, notFound())
	w := get(h, "/runs/nope")
	require.Equal(t, http.StatusNotFound, w.Code)
	require.Contains(t, w.Body.String(), `run nope not found in namespace &#34;default&#34;`)
}

// The approvals section is swapped only when the calls waiting changed,
// so typing into a form that still applies is never lost.
func TestApprovalsRefreshOnlyWhenTheWaitingCallsChange(t *testing.T) {
	m, h := newTestConsole(t, "")
	st, _ := sampleRun()
	m.On("QueryWorkflow", anyCtx, "travel-1", "", signals.QueryStatus).Return(mustJSON(t, st), nil)

	w := get(h, "/runs/travel-1/approvals?have=n6")
	require.Equal(t, http.StatusNoContent, w.Code)
	require.Empty(t, w.Body.String())

	w = get(h, "/runs/travel-1/approvals?have=n3")
	require.Equal(t, http.StatusOK, w.Code)
	section := parse(t, w.Body.String()).one(t, "section", "id", "approvals")
	require.Equal(t, "/runs/travel-1/approvals?have=n6", section.attr("hx-get"))
	require.Equal(t, "n6", section.one(t, "form", "class", "approval").attr("data-call-id"))
}

func TestJSONForTheForms(t *testing.T) {
	require.Equal(t, `{"a":[1,2]}`, compactJSON(json.RawMessage("{ \"a\": [1,\n 2] }")))
	require.Equal(t, "{\n  \"a\": 1\n}", indentJSON(json.RawMessage(`{"a":1}`)))
	require.Equal(t, "not json", compactJSON(json.RawMessage("not json")))
	require.Equal(t, `{"n":12345678901234567890,"s":"a<b & c"}`, compactJSON(json.RawMessage(`{"s":"a\u003cb \u0026 c","n":12345678901234567890}`)),
		"as a person wrote it: markup characters unescaped (the page escapes them), a large number exact")
	require.Equal(t, `{"a":1} {"b":2}`, compactJSON(json.RawMessage(`{"a":1} {"b":2}`)), "two values are not JSON: shown as is")
}

// The budget form is there only while a budget rung waits (a budget node
// pending): a decision at any other time is refused.
func TestTheBudgetFormOnlyWhileABudgetRungWaits(t *testing.T) {
	for status, shown := range map[signals.NodeStatus]bool{"": false, signals.StatusPending: true, signals.StatusCompleted: false} {
		m, h := newTestConsole(t, "")
		st, tr := sampleRun()
		st.Phase, st.PendingApprovals = signals.PhaseAwaitingHuman, nil
		if status != "" {
			tr.Nodes = append(tr.Nodes, signals.Node{ID: "n8", Kind: signals.KindBudget, Status: status, Parents: []string{"n6"}})
		}
		expectRun(t, m, "travel-1", st, tr)
		forms := parse(t, get(h, "/runs/travel-1").Body.String()).all("form", "id", "budget-form")
		require.Equal(t, shown, len(forms) == 1, "budget node %q", status)
		if shown {
			require.Equal(t, "/runs/travel-1/budget", forms[0].attr("hx-post"))
			forms[0].one(t, "button", "value", "stop")
		}
	}
}

// A run that ended shows no form that cannot act (no "Stop the run", no
// handoff, no edit): it says how to go on instead, a fork.
func TestAnEndedRunsPageOffersNoFormThatCannotAct(t *testing.T) {
	for phase, closed := range map[signals.Phase]bool{
		signals.PhaseCompleted: true, signals.PhaseStopped: true, signals.PhaseRunning: false, signals.PhaseAwaitingUser: false,
	} {
		m, h := newTestConsole(t, "")
		st, tr := sampleRun()
		st.Phase, st.PendingApprovals = phase, nil
		tr.Nodes = append(tr.Nodes, signals.Node{ID: "n8", Kind: signals.KindBudget, Status: signals.StatusPending, Parents: []string{"n6"}})
		expectRun(t, m, "travel-1", st, tr)
		body := get(h, "/runs/travel-1").Body.String()
		for _, form := range []string{`id="edit-form"`, `id="budget-form"`, `id="handoff-form"`, `id="approvals"`} {
			require.Equal(t, !closed, strings.Contains(body, form), "%s: %s", phase, form)
		}
		require.Equal(t, closed, strings.Contains(body, "unstuck fork travel-1 --node NODE_ID"), "%s", phase)
	}
}
