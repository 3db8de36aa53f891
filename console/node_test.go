package console

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/mocks"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
)

// detailedRun is a completed run whose nodes hold something of each
// kind of detail: a task ana gave, a request and its reply, a call with
// its result after a repair, a failed call, and markup from a tool.
func detailedRun() signals.Trace {
	at := func(s int) time.Time { return testNow.Add(time.Duration(s) * time.Second) }
	return signals.Trace{Generation: 1, Nodes: []signals.Node{
		{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted, Parents: []string{}, Agent: "booker", By: "ana", At: at(0),
			Args: json.RawMessage(`{"task":"Book UA1 <b>now</b>","input":{},"by":"ana"}`)},
		{ID: "n2", Kind: signals.KindRequest, Status: signals.StatusCompleted, Parents: []string{"n1"}, Agent: "booker", At: at(2),
			Output: json.RawMessage(`{"tool_calls":[{"id":"c1","name":"book","args":"{\"passengers\":\"2\"}"},{"id":"c2","name":"lookup","args":"{}"}]}`)},
		{ID: "n3", Kind: signals.KindCall, Status: signals.StatusCompleted, Parents: []string{"n2"}, Agent: "booker", Tool: "book", At: at(5),
			Args: json.RawMessage(`{"passengers":2,"price":12345678901234567890}`), Output: json.RawMessage(`{"confirmation":"CONF-42","note":"<script>alert(1)</script>"}`),
			Check: &signals.Check{Kind: signals.CheckVerify, Condition: "result.confirmation != ''", Passed: true}},
		{ID: "n4", Kind: signals.KindRepair, Status: signals.StatusCompleted, Parents: []string{"n3"}, Agent: "booker", Tool: "book", At: at(3),
			Args:   json.RawMessage(`{"passengers":"2"}`),
			Output: json.RawMessage(`{"repairs":[{"strategy":"coerce_type","path":"passengers","before":"2","after":2,"reason":"a string for an integer"}],"reason":"","args":{"passengers":2}}`)},
		{ID: "n5", Kind: signals.KindCall, Status: signals.StatusFailed, Parents: []string{"n2"}, Agent: "booker", Tool: "lookup", At: at(4),
			Args: json.RawMessage(`{}`), Error: `tool lookup: HTTP 404: <i>no such flight</i>`},
	}}
}

// expectFacts answers the run query: the run's nodes, as the workflow
// packs them (gzip-compressed JSON).
func expectFacts(t *testing.T, m *mocks.Client, id string, facts ...nodeFacts) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	require.NoError(t, json.NewEncoder(zw).Encode(map[string]any{"input": map[string]any{}, "nodes": facts}))
	require.NoError(t, zw.Close())
	m.On("QueryWorkflow", anyCtx, id, "", signals.QueryRun).Return(mustJSON(t, buf.Bytes()), nil)
}

func expectTrace(t *testing.T, m *mocks.Client, id string, tr signals.Trace) {
	m.On("QueryWorkflow", anyCtx, id, "", signals.QueryTrace).Return(mustJSON(t, tr), nil)
}

func TestANodesDetailsShowWhatItHolds(t *testing.T) {
	m, h := newTestConsole(t, "")
	expectTrace(t, m, "book-1", detailedRun())
	expectFacts(t, m, "book-1", nodeFacts{ID: "n3", Step: 1, Spent: &spentFacts{ToolCalls: 1}}, nodeFacts{ID: "n5", Class: "persistent", Step: 1})

	task := parse(t, get(h, "/runs/book-1/nodes/n1").Body.String()).one(t, "section", "class", "node-details")
	require.Equal(t, "ana", task.one(t, "dd", "class", "by").text(), "who gave the task")
	require.Equal(t, "Book UA1 <b>now</b>", task.one(t, "div", "class", "task").text(), "the task's text, markup as text")
	require.Empty(t, task.all("div", "class", "input"), "no input: none shown")

	w := get(h, "/runs/book-1/nodes/n3")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	call := parse(t, w.Body.String()).one(t, "section", "class", "node-details")
	require.Equal(t, "n3", call.attr("data-node-id"))
	require.Contains(t, call.one(t, "div", "class", "args").text(), `"price": 12345678901234567890`, "a number as it is")
	require.Contains(t, call.one(t, "div", "class", "output").text(), `"note": "<script>alert(1)</script>"`)
	require.Equal(t, "1", call.one(t, "dd", "class", "step").text())
	require.Equal(t, "2024-01-15 09:30:02.000", call.one(t, "dd", "class", "started").text(), "when its request settled")
	require.Equal(t, "2024-01-15 09:30:05.000", call.one(t, "dd", "class", "finished").text())
	require.Equal(t, "3s", call.one(t, "dd", "class", "duration").text())
	ck := call.one(t, "div", "class", "check")
	require.Equal(t, "verified verify: result.confirmation != ''", ck.text())
	repair := call.one(t, "div", "class", "repair")
	require.Equal(t, "n4", repair.attr("data-node-id"))
	require.Contains(t, repair.text(), `coerce_type passengers "2" 2`)

	failed := parse(t, get(h, "/runs/book-1/nodes/n5").Body.String()).one(t, "div", "class", "failure")
	require.Equal(t, "persistent", failed.one(t, "span", "class", "class").text())
	require.Equal(t, "tool lookup: HTTP 404: <i>no such flight</i>", failed.one(t, "pre", "class", "error-text").text())
}

// Everything a node holds comes from a model, a tool or a person: the
// fragment escapes it, so none of it becomes markup.
func TestANodesDetailsEscapeWhatTheyShow(t *testing.T) {
	m, h := newTestConsole(t, "")
	expectTrace(t, m, "book-1", detailedRun())
	expectFacts(t, m, "book-1")
	for _, id := range []string{"n1", "n3", "n5"} {
		body := get(h, "/runs/book-1/nodes/"+id).Body.String()
		page := parse(t, body)
		require.Empty(t, page.all("script"), id)
		require.Empty(t, page.all("b"), id)
		require.Empty(t, page.all("i"), id)
		require.NotContains(t, body, "<script>alert", id)
	}
}

// The details of a node still running follow it until it settles;
// a settled node's are read once.
func TestANodesDetailsFollowItUntilItSettles(t *testing.T) {
	m, h := newTestConsole(t, "")
	tr := detailedRun()
	tr.Nodes[4].Status, tr.Nodes[4].Error = signals.StatusRunning, ""
	expectTrace(t, m, "book-1", tr)
	expectFacts(t, m, "book-1")
	running := parse(t, get(h, "/runs/book-1/nodes/n5").Body.String()).one(t, "div", "class", "node-wrap")
	require.Equal(t, "/runs/book-1/nodes/n5", running.attr("hx-get"))
	require.Equal(t, "every 2s", running.attr("hx-trigger"))
	require.Equal(t, "outerHTML", running.attr("hx-swap"))
	require.Equal(t, "Since", running.one(t, "dl", "class", "timing").all("dt")[1].text(), "not finished yet")
	settled := parse(t, get(h, "/runs/book-1/nodes/n3").Body.String()).one(t, "div", "class", "node-wrap")
	require.Empty(t, settled.attr("hx-trigger"))
}

func TestANodesDetailsOfAnUnknownNodeOrRun(t *testing.T) {
	m, h := newTestConsole(t, "")
	expectTrace(t, m, "book-1", detailedRun())
	w := get(h, "/runs/book-1/nodes/n99")
	require.Equal(t, http.StatusNotFound, w.Code)
	require.Contains(t, w.Body.String(), "run book-1 has no node n99")
	w = get(h, "/runs/book-1/nodes/%3Cscript%3Ex%3C%2Fscript%3E")
	require.Equal(t, http.StatusNotFound, w.Code)
	require.Contains(t, w.Body.String(), "has no node &lt;script&gt;x&lt;/script&gt;", "the id asked for, escaped")

	m.On("QueryWorkflow", anyCtx, "nope", "", signals.QueryTrace).Return(nil, notFound())
	require.Equal(t, http.StatusNotFound, get(h, "/runs/nope/nodes/n1").Code)
}

// A request's messages are the conversation up to its reply, collapsed.
func TestARequestsDetailsShowItsMessages(t *testing.T) {
	m, h := newTestConsole(t, "")
	tr := detailedRun()
	expectTrace(t, m, "book-1", tr)
	expectFacts(t, m, "book-1", nodeFacts{ID: "n2", Step: 1, Spent: &spentFacts{ModelRequests: 1, InputTokens: 120, OutputTokens: 30}})
	reply := []activities.ToolCall{{ID: "c1", Name: "book", Args: `{"passengers":"2"}`}, {ID: "c2", Name: "lookup", Args: "{}"}}
	conv := activities.ModelContextPage{Messages: []activities.Message{
		{Role: "system", Content: "Book flights."},
		{Role: "user", Content: "Book UA1 <b>now</b>"},
		{Role: "assistant", ToolCalls: reply},
		{Role: "tool", ToolCallID: "c1", Content: `{"confirmation":"CONF-42"}`},
	}}
	m.On("QueryWorkflow", anyCtx, "book-1", "", signals.QueryModelContext, mock.Anything).Return(mustJSON(t, conv), nil)

	panel := parse(t, get(h, "/runs/book-1/nodes/n2").Body.String()).one(t, "section", "class", "node-details")
	msgs := panel.one(t, "details", "class", "messages")
	require.Empty(t, msgs.attr("open"), "collapsed")
	require.Equal(t, "2 messages sent", msgs.one(t, "summary").text())
	items := msgs.all("li", "class", "msg")
	require.Len(t, items, 2, "the messages before its reply")
	require.True(t, items[1].hasClass("role-user"))
	require.Contains(t, items[1].text(), "Book UA1 <b>now</b>")
	calls := panel.one(t, "div", "class", "reply").all("div", "class", "tool-call")
	require.Len(t, calls, 2, "its reply's calls")
	require.Contains(t, calls[0].text(), `calls book c1 { "passengers": "2" }`, "the arguments the model wrote, as JSON")
	require.Equal(t, "1 model request, 120 input and 30 output tokens", panel.one(t, "dd", "class", "spent").text())
}

// A large value shows its start, and the whole behind "show all".
func TestALargeValueIsCutWithShowAll(t *testing.T) {
	m, h := newTestConsole(t, "")
	tr := detailedRun()
	big := strings.Repeat("x", 3*shownWidth)
	tr.Nodes[2].Output = json.RawMessage(`{"text":"` + big + `"}`)
	expectTrace(t, m, "book-1", tr)
	expectFacts(t, m, "book-1")
	out := parse(t, get(h, "/runs/book-1/nodes/n3").Body.String()).one(t, "div", "class", "output")
	pres := out.all("pre")
	require.Len(t, pres, 2)
	require.Less(t, len(pres[0].text()), shownWidth+10, "the start")
	require.True(t, strings.HasSuffix(pres[0].text(), "…"))
	all := out.one(t, "details", "class", "show-all")
	require.Contains(t, all.one(t, "summary").text(), "show all")
	require.Contains(t, pres[1].text(), big, "the whole value")
}
