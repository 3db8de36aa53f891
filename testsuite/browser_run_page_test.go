package testsuite

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A run's page shows what each node holds: a click on a node in the graph
// (or a row of the node list) opens its details beside the graph. A task
// ana gave shows her; a call whose arguments a rule repaired shows its
// arguments, its result, its check (verify) and the repair; a call the tool refused shows its
// error and its class; a request shows the messages it was sent, folded.
// The run has ended, so the page offers no Stop and no other form. The
// tools are real HTTP servers on loopback; the model is the scripted test
// double.
func TestBrowserRunPageShowsEachNodesDetails(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		switch r.URL.Path {
		case "/book":
			writeJSON(w, 200, map[string]any{"confirmation": "CONF-42", "seats": 2, "note": "<b>held</b>"})
		case "/lookup":
			writeJSON(w, 404, map[string]string{"error": "no such flight ZZ9"})
		}
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: console-details }
tools:
  - name: book
    description: Book a flight.
    http: { url: "` + tools.URL + `/book" }
    effect: write
    verify: "result.confirmation == 'CONF-42' && result.seats == args.passengers"
` + bookParameters + `  - name: lookup
    description: Look a flight up.
    http: { url: "` + tools.URL + `/lookup" }
    parameters: { type: object, properties: { flight: { type: string } } }
agents:
  - { name: console-details, instructions: Book flights., tools: [book, lookup] }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"console-details": scriptedmodel.Sequence(
		scriptedmodel.CallsTurn(
			scriptedmodel.NewCall("book", map[string]any{"flight_id": "UA1", "date": "Oct 26, 2024", "cabin": "business class", "passengers": "2"}),
			scriptedmodel.NewCall("lookup", map[string]any{"flight": "ZZ9"})),
		scriptedmodel.CallTurn("final_output", map[string]any{"booked": "CONF-42"}),
	)})
	run := s.start(workflows.AgentInput{Agent: "console-details", Task: "Book UA1 on Oct 26, 2024 for two", By: "ana"})
	_, err := s.result(run)
	require.NoError(t, err)
	tr := s.trace(run)
	task, requests, repairs := nodesOf(tr, signals.KindTask), nodesOf(tr, signals.KindRequest), nodesOf(tr, signals.KindRepair)
	book, lookup := callsOf(tr, "book"), callsOf(tr, "lookup")
	require.Len(t, task, 1)
	require.Len(t, book, 1)
	require.Len(t, lookup, 1)
	require.Len(t, repairs, 1)
	require.Equal(t, signals.StatusFailed, lookup[0].Status)

	base := consoleServer(t)
	b.signIn(base)
	b.do("open the run's page",
		chromedp.Navigate(base+"/runs/"+run.GetID()),
		chromedp.WaitVisible(chromedp.CSS(`section#run-status[data-phase="completed"]`)))
	require.Equal(t, 0, b.count(`#node-panel .node-details`), "no details until a node is opened")
	require.Equal(t, 0, b.count(`button[value="stop"]`), "the run has ended: no Stop")
	require.Equal(t, 0, b.count(`#budget-form, #handoff-form, #edit-form`), "nor any other form")

	panel := b.openNode(task[0].ID)
	require.Equal(t, "ana", b.text(panel+` dd.by`), "who gave the task")
	require.Equal(t, "Book UA1 on Oct 26, 2024 for two", b.text(panel+` div.task`))

	panel = b.openNode(book[0].ID)
	args := b.text(panel + ` div.args`)
	require.Contains(t, args, `"date": "2024-10-26"`, "the arguments the call ran with")
	require.Contains(t, args, `"passengers": 2`, "a number as a number")
	result := b.text(panel + ` div.output`)
	require.Contains(t, result, `"confirmation": "CONF-42"`)
	require.Contains(t, result, `"note": "<b>held</b>"`, "the tool's markup as text")
	require.Equal(t, 0, b.count(`#node-panel b`), "no markup from a tool reaches the page")
	repair := b.text(fmt.Sprintf(`%s div.repair[data-node-id=%q]`, panel, repairs[0].ID))
	for _, strategy := range []string{"reformat_date", "correct_enum", "coerce_type"} {
		require.Contains(t, repair, strategy, "the repair applied")
	}
	require.Equal(t, "verified verify: result.confirmation == 'CONF-42' && result.seats == args.passengers",
		b.text(panel+` div.check`), "the check the result was held to")
	require.NotEmpty(t, b.text(panel+` dd.finished`), "when it finished")
	require.NotEmpty(t, b.text(panel+` dd.duration`), "how long it took")

	// The beside-the-graph promise: the panel's left edge is right of the
	// graph's, on screen with it.
	beside := get(b, "compare where the graph and the details are", chromedp.Evaluate[bool](
		`(() => { const g = document.querySelector('#graph').getBoundingClientRect();
		          const p = document.querySelector('#node-panel').getBoundingClientRect();
		          return p.left >= g.right && p.top < g.bottom; })()`))
	require.True(t, beside, "the details open beside the graph")
	b.screenshot("run-page-call")

	panel = b.openNode(lookup[0].ID)
	require.Equal(t, "persistent", b.text(panel+` .failure span.class`), "the failure's class (a 404)")
	require.Contains(t, b.text(panel+` .failure pre.error-text`), "404")
	b.screenshot("run-page-failed-call")

	// From the node list: the first request, its messages folded.
	b.do("open the first request from the node list",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`table.node-list tr[data-node-id=%q] td:nth-child(2)`, requests[0].ID))),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#node-panel .node-details[data-node-id=%q]`, requests[0].ID))))
	summary := b.text(`#node-panel details.messages summary`)
	require.True(t, strings.HasSuffix(summary, "messages sent"), summary)
	require.False(t, get(b, "read whether the messages are open", chromedp.Evaluate[bool](
		`document.querySelector('#node-panel details.messages').open`)), "folded until asked")
	b.do("unfold the messages", chromedp.Click(chromedp.CSS(`#node-panel details.messages summary`)))
	require.Contains(t, b.text(`#node-panel details.messages li.msg.role-user`), "Book UA1 on Oct 26, 2024 for two")
	calls := b.text(`#node-panel div.reply`)
	require.Contains(t, calls, "calls book")
	require.Contains(t, calls, "calls lookup")
	require.Contains(t, calls, `"flight": "ZZ9"`, "the arguments the model wrote, as JSON")
	b.screenshot("run-page-request")
}

// openNode clicks node id in the graph and waits for its details; it
// answers the panel's selector.
func (b *browser) openNode(id string) string {
	b.t.Helper()
	panel := fmt.Sprintf(`#node-panel .node-details[data-node-id=%q]`, id)
	b.do("open node "+id+" from the graph",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#graph svg g.node[data-node-id=%q] rect`, id))),
		chromedp.WaitVisible(chromedp.CSS(panel)))
	return panel
}

// The same page for a graph run: a click on a tool node of the graph opens
// what it holds (its arguments, resolved from the input, its result and
// check), a tool node the tool refused shows its error and class, and the
// task shows who gave it.
func TestBrowserRunPageShowsAGraphNodesDetails(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		switch r.URL.Path {
		case "/book":
			writeJSON(w, 200, map[string]any{"confirmation": "CONF-43", "seats": 2})
		case "/lookup":
			writeJSON(w, 404, map[string]string{"error": "no such flight ZZ9"})
		}
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - name: book
    description: Book a flight.
    http: { url: "` + tools.URL + `/book" }
    effect: write
    verify: "result.seats == args.passengers"
` + bookParameters + `  - name: lookup
    description: Look a flight up.
    http: { url: "` + tools.URL + `/lookup" }
    parameters: { type: object, properties: { flight: { type: string } } }
agents:
  - name: graph-details
    instructions: Book flights.
    tools: [book, lookup]
    graph:
      start: B
      nodes:
        B: { tool: book, args: { flight_id: "UA1", date: "2024-10-26", cabin: business, passengers: "†input.seats" }, output_path: "†state.booking" }
        L: { tool: lookup, args: { flight: "ZZ9" } }
        E: { end: true, output: "†state.booking" }
      edges: [ { from: B, to: L }, { from: L, to: E } ]
`
	s := newStack(t, cfg, nil)
	run := s.start(workflows.AgentInput{Agent: "graph-details", Task: "Book UA1 for two", Input: []byte(`{"seats": 2}`), By: "ana"})
	_, err := s.result(run)
	require.NoError(t, err)
	tr := s.trace(run)
	task, book, lookup := nodesOf(tr, signals.KindTask), callsOf(tr, "book"), callsOf(tr, "lookup")
	require.Len(t, task, 1)
	require.Len(t, book, 1)
	require.Len(t, lookup, 1)
	require.Equal(t, "B", book[0].GraphNode)

	base := consoleServer(t)
	b.signIn(base)
	b.do("open the run's page",
		chromedp.Navigate(base+"/runs/"+run.GetID()),
		chromedp.WaitVisible(chromedp.CSS(`section#run-status[data-phase="completed"]`)))
	panel := b.openNode(task[0].ID)
	require.Equal(t, "ana", b.text(panel+` dd.by`), "who gave the task")

	panel = b.openNode(book[0].ID)
	require.Contains(t, b.text(panel+` div.args`), `"passengers": 2`, "the argument resolved from the input, a number as a number")
	require.Contains(t, b.text(panel+` div.output`), `"confirmation": "CONF-43"`)
	require.Equal(t, "verified verify: result.seats == args.passengers", b.text(panel+` div.check`))

	panel = b.openNode(lookup[0].ID)
	require.Equal(t, "persistent", b.text(panel+` .failure span.class`), "the failure's class (a 404)")
	require.Contains(t, b.text(panel+` .failure pre.error-text`), "404")
}
