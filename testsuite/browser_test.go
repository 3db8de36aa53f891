package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// The console (package console) in headless Chromium against the real dev
// server and worker: a person approves calls, edits a node of a looping
// run and replies as a human agent by clicking through its pages, and each
// action is then checked in the run's trace through the Temporal client,
// not the page. The model is the scripted test double; the tools are real
// HTTP servers on loopback. Screenshots go to artifacts/screenshots.

// A run whose write waits for approval is on the runs list; its page
// shows the run's refusal of a decision with the update's message,
// approves the call, and modifies the next call's arguments when it shows
// up; the calls ran with the approved arguments and the run completed.
func TestBrowserConsoleApprovesCalls(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	tools := newBookingServer(t, "done")
	cfg := `
model: { base_url: "{{MODEL}}", name: console-approvals }
tools:` + bookToolYAML(tools.URL) + `
  - name: confirm
    http: { url: "` + tools.URL + `/confirm" }
    approval: always
    parameters: { type: object, required: [booking], properties: { booking: { type: string } } }
agents:
  - { name: console-booker, instructions: Book then confirm., tools: [book, confirm] }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"console-approvals": scriptedmodel.Sequence(
		scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"}),
		scriptedmodel.CallTurn("confirm", map[string]any{"booking": "B-1"}),
		scriptedmodel.CallTurn("final_output", map[string]any{"booked": true}),
	)})
	run := s.start(workflows.AgentInput{Agent: "console-booker", Task: "book seat 12A"})
	id := run.GetID()
	base := consoleServer(t)
	unauthorized(t, base)

	// The runs list shows the run waiting (its table refreshes itself).
	b.signIn(base)
	row := fmt.Sprintf(`tr.run[data-workflow-id=%q]`, id)
	b.do("see the run waiting for approval on the runs list",
		chromedp.WaitVisible(chromedp.CSS(row+`[data-phase="awaiting_approval"][data-agent="console-booker"]`)))
	// Every cell of the row is a table cell: a phase badge styled on the
	// cell itself (inline-block) pulls it out of the row's line.
	require.Zero(t, get(b, "read how the row's cells lay out", chromedp.Evaluate[int](
		"[...document.querySelectorAll("+jsString(row+" td")+")].filter(td => getComputedStyle(td).display !== 'table-cell').length")),
		"every cell of the row lays out as a table cell")
	require.Equal(t, "awaiting_approval", b.text(row+" td span.phase"), "the phase shows as a badge inside its cell")
	b.screenshot("runs-list")

	b.do("open the run's page from its row",
		chromedp.Click(chromedp.CSS(row+` a.run-link`)),
		chromedp.WaitVisible(chromedp.CSS(`section#run-status[data-phase="awaiting_approval"]`)))
	book := s.pendingApproval(run)
	form := fmt.Sprintf(`form.approval[data-call-id=%q]`, book.CallID)
	args := get(b, "read the call's arguments", chromedp.Value(chromedp.CSS(form+` textarea[name="args"]`)))
	require.JSONEq(t, `{"seat": "12A"}`, args, "the form shows the call's arguments")

	// A decision the run refuses (arguments that do not fit the tool) shows
	// the update's own message, and changes nothing: the call still waits,
	// offered as before.
	b.do("modify the call with a seat that is not a string",
		chromedp.SetValue(chromedp.CSS(form+` textarea[name="args"]`), `{"seat": 12}`),
		chromedp.Click(chromedp.CSS(form+` button[name="decision"][value="modify"]`)))
	refused := b.text(`#answer .answer.rejected`)
	direct := s.update(run, signals.Approve, signals.ApproveRequest{CallID: book.CallID, Decision: signals.DecisionModify, Args: json.RawMessage(`{"seat": 12}`)})
	require.Error(t, direct)
	require.Contains(t, refused, "approve: ")
	require.Equal(t, direct.Error(), refused, "the page shows the update's message verbatim")
	require.Equal(t, signals.PhaseAwaitingApproval, s.status(run).Phase)
	require.Equal(t, []signals.PendingApproval{book}, s.status(run).PendingApprovals)
	require.Equal(t, 1, b.count(form), "the call is still offered")

	b.do("approve the call",
		chromedp.SetValue(chromedp.CSS(form+` textarea[name="args"]`), args),
		chromedp.SetValue(chromedp.CSS(form+` input[name="by"]`), "alice"),
		chromedp.SetValue(chromedp.CSS(form+` input[name="reason"]`), "seat checked"),
		chromedp.Click(chromedp.CSS(form+` button[name="decision"][value="approve"]`)))
	b.waitText(`#answer .answer.ok`, "call "+book.CallID+" settled (approve)")
	require.Equal(t, 0, b.count(`#answer .answer.rejected`), "the answer replaced the refusal")

	// The approvals refresh themselves: the settled call goes and the next
	// one shows up without a reload; modify runs it with the person's
	// arguments.
	confirm := s.awaitApproval(id, 0, "confirm")
	settled := form
	form = fmt.Sprintf(`form.approval[data-call-id=%q]`, confirm.CallID)
	b.do("see the next call offered and the settled one gone",
		chromedp.WaitVisible(chromedp.CSS(form)),
		chromedp.WaitNotPresent(chromedp.CSS(settled)))
	// The live part above the forms grows as the graph takes the call's
	// node; once it shows the node waiting, the page holds still, so the
	// click lands on the button it aims at.
	b.do("see the call's node waiting in the graph",
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`g#node-%s[data-status="awaiting_approval"]`, confirm.CallID))))
	b.do("modify the next call",
		chromedp.SetValue(chromedp.CSS(form+` textarea[name="args"]`), `{"booking": "B-2"}`),
		chromedp.SetValue(chromedp.CSS(form+` input[name="by"]`), "alice"),
		chromedp.Click(chromedp.CSS(form+` button[name="decision"][value="modify"]`)))
	b.waitText(`#answer .answer.ok`, "call "+confirm.CallID+" settled (modify)")

	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"booked": true}`, string(res.Output))
	require.Len(t, tools.requests("/book"), 1)
	require.JSONEq(t, `{"seat": "12A"}`, tools.requests("/book")[0].Body, "book ran with the approved arguments")
	require.Len(t, tools.requests("/confirm"), 1)
	require.JSONEq(t, `{"booking": "B-2"}`, tools.requests("/confirm")[0].Body, "confirm ran with the modified arguments")

	tr := s.trace(run)
	approvals := nodesOf(tr, signals.KindApproval)
	require.Len(t, approvals, 2, "the refused decisions left no node")
	require.Contains(t, string(approvals[0].Args), "alice")
	require.Contains(t, string(approvals[0].Args), "seat checked")
	require.Contains(t, string(approvals[1].Args), "modify")
	require.Equal(t, signals.StatusCompleted, nodeOf(t, tr, book.CallID).Status)
}

// A model repeating a failing call loops; the ladder asks a person, and
// the run's page shows the loop. An edit of the first call's arguments
// through the edit form invalidates what followed, the graph shows it
// without a reload, and the run completes with the edited call.
func TestBrowserConsoleEditsALoopingRun(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		var a map[string]string
		_ = json.NewDecoder(r.Body).Decode(&a)
		if a["seat"] == "12A" {
			writeJSON(w, 409, map[string]string{"error": "seat 12A is taken"})
			return
		}
		writeJSON(w, 200, map[string]string{"booked": a["seat"]})
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: console-stubborn }
tools:
  - name: book
    http: { url: "` + tools.URL + `/book" }
    parameters: { type: object, required: [seat], properties: { seat: { type: string } } }
agents:
  - name: console-stubborn
    instructions: Book.
    tools: [book]
    policies: { max_steps: 30, loop: { window: 16, repeats: 3 }, escalation: [human, stop], breaker: { failures: 50 }, human_timeout: 1h }
`
	// The stubborn model (a test double) books 12A until a booking
	// succeeds, then answers.
	stubborn := func(req openaiRequest) scriptedmodel.Turn {
		for _, r := range scriptedmodel.LastToolResults(req) {
			if !r.IsError() {
				return scriptedmodel.CallTurn("final_output", map[string]any{"booking": r.Content})
			}
		}
		return scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"})
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"console-stubborn": stubborn})
	first := s.start(workflows.AgentInput{Agent: "console-stubborn", Task: "book a seat"})
	id, run := first.GetID(), latestRun{first}
	awaitPhase(t, s, run, signals.PhaseAwaitingHuman)
	before := s.trace(run)
	calls := callsOf(before, "book")
	require.Len(t, calls, 3, "the loop is found at the third repetition")

	base := consoleServer(t)
	b.signIn(base)
	b.do("open the run's page",
		chromedp.Navigate(base+"/runs/"+id),
		chromedp.WaitVisible(chromedp.CSS(`section#run-status[data-phase="awaiting_human"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#graph svg .loop`)))
	for _, c := range calls {
		require.Equal(t, 1, b.count(fmt.Sprintf(`#graph svg g.node[data-node-id=%q][data-kind="call"]`, c.ID)), "call %s is drawn", c.ID)
	}
	b.screenshot("run-graph-loop")

	b.do("edit the first call's arguments",
		chromedp.SetValue(chromedp.CSS(`#edit-form select[name="node_id"]`), calls[0].ID),
		chromedp.SetValue(chromedp.CSS(`#edit-form textarea[name="args"]`), `{"seat": "14C"}`),
		chromedp.SetValue(chromedp.CSS(`#edit-form input[name="reason"]`), "12A is taken: take 14C"),
		chromedp.SetValue(chromedp.CSS(`#edit-form input[name="by"]`), "bob"),
		chromedp.Click(chromedp.CSS(`#edit-form button[type="submit"]`)))
	ok := b.text(`#answer .answer.ok`)
	require.Contains(t, ok, "edited "+calls[0].ID)

	// The live part of the page refreshes itself: the edit, the
	// invalidated calls and the run's end appear without a reload.
	b.do("see the edit and the invalidated nodes in the graph",
		chromedp.WaitVisible(chromedp.CSS(`#graph svg g.node[data-kind="edit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#graph svg g.node.invalidated[data-status="invalidated"]`)),
		chromedp.WaitVisible(chromedp.CSS(`section#run-status[data-phase="completed"]`)))
	shown := get(b, "read the invalidated nodes drawn", chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('#graph svg g.node[data-status="invalidated"]')].map(n => n.dataset.nodeId)`))
	b.screenshot("run-graph-edit")

	res, err := s.result(run)
	require.NoError(t, err)
	require.Contains(t, string(res.Output), "14C")
	require.Equal(t, "14C", lastBody(t, tools, "/book")["seat"], "the edited call ran with the person's arguments")

	tr := s.trace(run)
	edits := nodesOf(tr, signals.KindEdit)
	require.Len(t, edits, 1)
	require.Equal(t, "bob", edits[0].By)
	require.Equal(t, "12A is taken: take 14C", edits[0].Reason)
	var invalidated []string
	for _, n := range tr.Nodes {
		if n.Status == signals.StatusInvalidated {
			invalidated = append(invalidated, n.ID)
		}
	}
	for _, c := range calls[1:] {
		require.Contains(t, invalidated, c.ID, "a call after the edited one is invalidated")
	}
	slices.Sort(shown)
	slices.Sort(invalidated)
	require.Equal(t, invalidated, shown, "the graph marks exactly the trace's invalidated nodes")
}

// lastBody is the JSON body of the last request a tool server got on path.
func lastBody(t *testing.T, tools *toolServer, path string) map[string]any {
	t.Helper()
	reqs := tools.requests(path)
	require.NotEmpty(t, reqs, "no request on %s", path)
	var body map[string]any
	require.NoError(t, json.Unmarshal([]byte(reqs[len(reqs)-1].Body), &body))
	return body
}

// inboxConfig: desk hands a run to signer, a person, whose text reply
// hands it back to desk.
const inboxConfig = `
model: { base_url: "{{MODEL}}", name: unused }
agents:
  - name: inbox-desk
    instructions: You route sign-offs.
    model: { name: inbox-desk }
    handoffs: [human]
  - name: inbox-signer
    description: A person who signs orders off.
    kind: human
    policies: { human_timeout: 1h }
`

// A run handed to a person is in the human inbox with its handoff
// context; the person's reply typed there hands it back to the agent,
// which completes it; the reply is in the trace.
func TestBrowserConsoleHumanInboxReply(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	s := newStack(t, inboxConfig, map[string]scriptedmodel.Script{
		"inbox-desk": handedBackBy("inbox-signer",
			scriptedmodel.Sequence(handoffCall("inbox-signer", "user_escalation", "Order 7 needs a person's sign-off.", "sign order 7 off")),
			scriptedmodel.Reply("The signer sent it back; order 7 is filed as is.")),
	})
	first := s.start(workflows.AgentInput{Agent: "inbox-desk", Task: "sign order 7 off"})
	id, run := first.GetID(), latestRun{first}
	awaitPhase(t, s, run, signals.PhaseAwaitingHuman)
	// The inbox lists what visibility says waits for a person.
	require.Eventually(t, func() bool {
		resp, err := s.client.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("WorkflowId = '%s' AND AgentPhase = 'awaiting_human'", id),
		})
		return err == nil && len(resp.Executions) == 1
	}, 20*time.Second, 200*time.Millisecond)

	base := consoleServer(t)
	b.signIn(base)
	item := fmt.Sprintf(`article.inbox-item[data-workflow-id=%q]`, id)
	b.do("open the inbox from the navigation",
		chromedp.Click(chromedp.CSS(`nav a[href="/inbox"]`)),
		chromedp.WaitVisible(chromedp.CSS(item)))
	shown := b.text(item)
	for try := 0; try < 3 && strings.Contains(shown, "query of "+id); try++ {
		// The page says the run's query went unanswered: on a machine
		// loaded by the other tests its worker can be that slow. A person
		// would reload; so does the test.
		b.do("reload the inbox", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(item)))
		shown = b.text(item)
	}
	for _, want := range []string{"inbox-desk", "Order 7 needs a person's sign-off.", "sign order 7 off", "user_escalation"} {
		require.Contains(t, shown, want, "the inbox item shows the handoff context")
	}
	b.screenshot("human-inbox")

	reply := "Not mine to sign: file it as is."
	b.do("type and send a reply",
		chromedp.SendKeys(chromedp.CSS(item+` form.reply-form textarea[name="text"]`), reply),
		chromedp.Click(chromedp.CSS(item+` form.reply-form button[type="submit"]`)))
	b.text(item + ` .answer.ok`)

	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "inbox-desk", res.Agent, "the reply handed the run back to desk")
	require.Equal(t, []string{"inbox-desk", "inbox-signer", "inbox-desk"}, res.HandoffPath)

	tr := s.trace(s.latest(id))
	var replied bool
	for _, n := range nodesOf(tr, signals.KindHuman) {
		if n.Status == signals.StatusCompleted && strings.Contains(string(n.Output), reply) {
			replied = true
		}
	}
	require.True(t, replied, "the trace records the person's reply: %+v", nodesOf(tr, signals.KindHuman))
	handoffs := nodesOf(tr, signals.KindHandoff)
	require.NotEmpty(t, handoffs)
	last := handoffs[len(handoffs)-1]
	require.Equal(t, "inbox-signer->inbox-desk", last.From+"->"+last.To)
}
