package console

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

// checkedRun is a run with a call that failed its read-back (n3, read
// back by n4, the tool's answer holding markup), a call that failed its
// verify expression (n5) and one that passed its result_schema (n6).
func checkedRun() (signals.Status, signals.Trace) {
	st := signals.Status{Agent: "travel", Phase: signals.PhaseCompleted, Step: 4, Unverified: 2,
		LastError: `verify "result.status == 'paid'" is false: result.status = "pending"`}
	tr := signals.Trace{Nodes: []signals.Node{
		{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted},
		{ID: "n2", Kind: signals.KindRequest, Status: signals.StatusCompleted, Parents: []string{"n1"}},
		{ID: "n3", Kind: signals.KindCall, Status: signals.StatusFailed, Parents: []string{"n2"}, Tool: "book_room",
			Output: json.RawMessage(`{"confirmation":"B-1"}`), Error: "read-back get_booking: expect is false",
			Check: &signals.Check{Kind: signals.CheckReadBack, Condition: "result.state == 'confirmed'", ReadBack: "n4",
				Reason: "read-back get_booking: expect is false: result.state = \"<b>pending</b>\"",
				Seen:   []signals.Seen{{Path: "result.state", Value: json.RawMessage(`"<b>pending</b>"`)}}}},
		{ID: "n4", Kind: signals.KindCall, Status: signals.StatusCompleted, Parents: []string{"n3"}, Tool: "get_booking", CheckOf: "n3",
			Args: json.RawMessage(`{"id":"B-1"}`), Output: json.RawMessage(`{"state":"<b>pending</b>"}`)},
		{ID: "n5", Kind: signals.KindCall, Status: signals.StatusFailed, Parents: []string{"n2"}, Tool: "pay",
			Check: &signals.Check{Kind: signals.CheckVerify, Condition: "result.status == 'paid' && result.amount == args.amount",
				Reason: `verify "result.status == 'paid'" is false: result.status = "pending"`,
				Seen: []signals.Seen{{Path: "result.status", Value: json.RawMessage(`"pending"`)},
					{Path: "args.amount", Value: json.RawMessage(`120`)}}}},
		{ID: "n6", Kind: signals.KindCall, Status: signals.StatusCompleted, Parents: []string{"n2"}, Tool: "find_hotel",
			Check: &signals.Check{Kind: signals.CheckResultSchema, Passed: true}},
	}}
	return st, tr
}

// Each checked call carries its verdict in the graph, and the checks
// section says what a failed one was held to, what it read and why,
// with the read-back it made; values from the tools stay text.
func TestRunPageShowsChecksBesideTheirCalls(t *testing.T) {
	m, h := newTestConsole(t, "")
	st, tr := checkedRun()
	expectRun(t, m, "travel-1", st, tr)
	w := get(h, "/runs/travel-1/live")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	require.NotContains(t, w.Body.String(), "<b>pending", "a tool's markup is escaped")
	page := parse(t, w.Body.String())

	unverified := page.one(t, "dd", "class", "unverified")
	require.Equal(t, "2", unverified.text(), "the summary counts the unverified calls")

	svg := page.one(t, "section", "id", "graph").one(t, "svg")
	for id, mark := range map[string]string{"n3": "✗ unverified", "n5": "✗ unverified", "n6": "✓ verified"} {
		g := svg.one(t, "g", "id", "node-"+id)
		require.Equal(t, mark, g.one(t, "text", "class", "check-mark").text(), id)
		require.Equal(t, "#check-"+id, g.one(t, "a").attr("href"), "the mark leads to the check")
	}
	require.True(t, svg.one(t, "g", "id", "node-n3").hasClass("unverified"))
	require.True(t, svg.one(t, "g", "id", "node-n6").hasClass("verified"))
	rb := svg.one(t, "g", "id", "node-n4")
	require.True(t, rb.hasClass("read-back"))
	require.Equal(t, "n4 read-back of n3", rb.one(t, "text", "class", "label").text(), "not shown as the model's call")
	require.Empty(t, rb.all("text", "class", "check-mark"))
	require.Empty(t, svg.all("g", "id", "node-n1")[0].all("text", "class", "check-mark"), "a node without a check has no mark")

	checks := page.one(t, "section", "id", "checks").all("li", "class", "check")
	require.Len(t, checks, 3, "one entry per checked call, none for the read-back itself")

	book := checks[0]
	require.Equal(t, "check-n3", book.attr("id"))
	require.True(t, book.hasClass("unverified"))
	require.Equal(t, "unverified", book.one(t, "strong", "class", "verdict").text())
	require.Equal(t, "read-back expect: result.state == 'confirmed'", book.one(t, "div", "class", "condition-line").text())
	require.Equal(t, `result.state = "<b>pending</b>"`, book.one(t, "ul", "class", "seen").text(), "the value as text, markup and all")
	require.Equal(t, `read-back get_booking: expect is false: result.state = "<b>pending</b>"`, book.one(t, "p", "class", "reason").text())
	readBack := book.one(t, "div", "class", "read-back")
	require.Equal(t, "n4", readBack.attr("data-node-id"))
	require.Equal(t, "#node-n4", readBack.one(t, "a").attr("href"))
	require.Equal(t, `read-back n4 get_booking {"id":"B-1"} answered {"state":"<b>pending</b>"}`, readBack.text())

	pay := checks[1]
	require.Equal(t, "n5", pay.attr("data-node-id"))
	require.Equal(t, "verify", pay.attr("data-kind"))
	require.Equal(t, "result.status == 'paid' && result.amount == args.amount", pay.one(t, "code", "class", "condition").text())
	var seen []string
	for _, li := range pay.one(t, "ul", "class", "seen").all("li") {
		seen = append(seen, li.text())
	}
	require.Equal(t, []string{`result.status = "pending"`, `args.amount = 120`}, seen)
	require.Empty(t, pay.all("div", "class", "read-back"))

	hotel := checks[2]
	require.True(t, hotel.hasClass("verified"))
	require.Equal(t, "true", hotel.attr("data-passed"))
	require.Equal(t, "n6 find_hotel: verified (result_schema)", hotel.text(), "a passed check says little")
	require.Empty(t, hotel.all("p", "class", "reason"))
}

// A run without checks shows neither the count nor the section.
func TestRunPageWithoutChecks(t *testing.T) {
	m, h := newTestConsole(t, "")
	st, tr := sampleRun()
	expectRun(t, m, "travel-1", st, tr)
	page := parse(t, get(h, "/runs/travel-1/live").Body.String())
	require.Empty(t, page.all("dd", "class", "unverified"))
	require.Empty(t, page.all("section", "id", "checks"))
	require.Empty(t, page.all("text", "class", "check-mark"))
}

// A call whose read-back could not read is marked as such, in the graph
// and the checks section, never as unverified.
func TestRunPageShowsAnUnknownOutcome(t *testing.T) {
	m, h := newTestConsole(t, "")
	tr := signals.Trace{Nodes: []signals.Node{
		{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted},
		{ID: "n2", Kind: signals.KindCall, Status: signals.StatusFailed, Parents: []string{"n1"}, Tool: "book_room",
			Error: "the outcome of the write is unknown", Check: &signals.Check{Kind: signals.CheckReadBack, Condition: "result.state == 'confirmed'",
				Reason: "the outcome of the write is unknown", Unknown: true}},
	}}
	expectRun(t, m, "travel-2", signals.Status{Agent: "travel", Phase: signals.PhaseCompleted}, tr)
	w := get(h, "/runs/travel-2/live")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	page := parse(t, w.Body.String())
	g := page.one(t, "section", "id", "graph").one(t, "svg").one(t, "g", "id", "node-n2")
	require.Equal(t, "? outcome unknown", g.one(t, "text", "class", "check-mark").text())
	require.True(t, g.hasClass("outcome_unknown"))
	require.False(t, g.hasClass("unverified"))
	check := page.one(t, "li", "id", "check-n2")
	require.True(t, check.hasClass("outcome_unknown"))
	require.Equal(t, "outcome_unknown", check.one(t, "strong", "class", "verdict").text())
}
