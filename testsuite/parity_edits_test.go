package testsuite

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// People changing a run, in both run shapes: a person approves, modifies
// or replaces a waiting write, edits an earlier step before or after a
// write ran, or forks the run. Each cell is served by the worker binary on
// the real server, with HTTP tools on loopback counting every request.

// peopleConfig has, for each run, a free-form agent and its graph twin,
// named <shape>-<run>; {{TOOLS}} is the tool server. Both shapes end with
// the same output: the free-form model's final_output and the graph's end
// node both answer {"booking": ...} or {"paid": ..., "confirmed": ...}.
const peopleConfig = `
model: { base_url: "{{MODEL}}", name: people }
tools:
  - { name: quote, http: { url: "{{TOOLS}}/quote" }, parameters: { type: object } }
  - name: book
    http: { url: "{{TOOLS}}/book" }
    effect: write
    approval: always
    parameters: { type: object, required: [seat], properties: { seat: { type: string } } }
  - name: waitlist
    http: { url: "{{TOOLS}}/waitlist" }
    effect: write
    parameters: { type: object, required: [seat], properties: { seat: { type: string } } }
  - name: pay
    http: { url: "{{TOOLS}}/pay" }
    effect: write
    parameters: { type: object, required: [seat], properties: { seat: { type: string } } }
  - { name: confirm, http: { url: "{{TOOLS}}/confirm" }, approval: always, parameters: { type: object } }
agents:
  - { name: free-form-book, instructions: Book 12A., tools: [book, waitlist] }
  - name: graph-book
    instructions: Book 12A.
    tools: [book, waitlist]
    graph:
      start: B
      nodes: { B: { tool: book, args: { seat: "12A" }, output_path: "†state.out.booking" }, E: { end: true, output: "†state.out" } }
      edges: [ { from: B, to: E } ]
  - { name: free-form-llm-book, instructions: Book 12A., tools: [book] }
  - name: graph-llm-book
    instructions: Book 12A.
    tools: [book]
    graph: { start: L, nodes: { L: { llm: true }, E: { end: true, output: "†state.out" } }, edges: [ { from: L, to: E } ] }
  - { name: free-form-quote-book, instructions: Book the quoted seat., tools: [quote, book] }
  - name: graph-quote-book
    instructions: Book the quoted seat.
    tools: [quote, book]
    graph:
      start: Q
      nodes:
        Q: { tool: quote, output_path: "†state.q" }
        B: { tool: book, args: { seat: "†state.q.seat" }, output_path: "†state.out.booking" }
        E: { end: true, output: "†state.out" }
      edges: [ { from: Q, to: B }, { from: B, to: E } ]
  - { name: free-form-pay-confirm, instructions: Pay the quoted seat then confirm the price., tools: [quote, pay, confirm] }
  - name: graph-pay-confirm
    instructions: Pay the quoted seat then confirm the price.
    tools: [quote, pay, confirm]
    graph:
      start: Q
      nodes:
        Q: { tool: quote, output_path: "†state.q" }
        P: { tool: pay, args: { seat: "†state.q.seat" }, output_path: "†state.out.paid" }
        C: { tool: confirm, args: { price: "†state.q.price" }, output_path: "†state.out.confirmed" }
        E: { end: true, output: "†state.out" }
      edges: [ { from: Q, to: P }, { from: P, to: C }, { from: C, to: E } ]
`

// bookScript books 12A and answers the booking.
var bookScript = scriptedmodel.Sequence(
	scriptedmodel.CallTurn("book", map[string]any{"seat": "12A", "_outputPath": "†state.out.booking"}),
	scriptedmodel.CallTurn("final_output", map[string]any{"booking": "†state.out.booking"}),
)

// peopleScripts are the model's turns of each run: the graph's llm node
// asks once, the free-form model once more for its final_output; the
// other graphs need no model. A Sequence goes by the replies already in
// the conversation, so after an edit the model says again what it said
// there.
var peopleScripts = map[string]scriptedmodel.Script{
	"book":     bookScript,
	"llm-book": bookScript,
	"quote-book": scriptedmodel.Sequence(
		scriptedmodel.CallTurn("quote", map[string]any{"_outputPath": "†state.q"}),
		scriptedmodel.CallTurn("book", map[string]any{"seat": "†state.q.seat", "_outputPath": "†state.booking"}),
		scriptedmodel.CallTurn("final_output", map[string]any{"booking": "†state.booking"}),
	),
	"pay-confirm": scriptedmodel.Sequence(
		scriptedmodel.CallTurn("quote", map[string]any{"_outputPath": "†state.q"}),
		scriptedmodel.CallTurn("pay", map[string]any{"seat": "†state.q.seat", "_outputPath": "†state.paid"}),
		scriptedmodel.CallTurn("confirm", map[string]any{"price": "†state.q.price", "_outputPath": "†state.confirmed"}),
		scriptedmodel.CallTurn("final_output", map[string]any{"paid": "†state.paid", "confirmed": "†state.confirmed"}),
	),
}

// The quote is seat 12A at 10; every other tool answers its arguments and
// its own name, so an output says which tool ran with what.
func newPeopleToolServer(t *testing.T) *toolServer {
	return newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.URL.Path == "/quote" {
			writeJSON(w, 200, map[string]any{"seat": "12A", "price": 10})
			return
		}
		a := map[string]any{}
		_ = json.NewDecoder(r.Body).Decode(&a)
		a["done_by"] = strings.TrimPrefix(r.URL.Path, "/")
		writeJSON(w, 200, a)
	})
}

// startPeopleRun starts the shape's agent of a run on a worker binary of
// its own.
func startPeopleRun(t *testing.T, shape, name string) (*stack, *toolServer, client.WorkflowRun) {
	tools := newPeopleToolServer(t)
	var scripts map[string]scriptedmodel.Script
	if script, ok := peopleScripts[name]; ok {
		scripts = map[string]scriptedmodel.Script{"people": script}
	}
	s := newBinaryStack(t, strings.ReplaceAll(peopleConfig, "{{TOOLS}}", tools.URL), scripts)
	return s, tools, s.start(workflows.AgentInput{Agent: shape + "-" + name, Task: "book a seat"})
}

func TestParityOfPeopleChangingTheRun(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells,
			parityCell{capability: "approve a call", shape: shape, run: func(t *testing.T) {
				decideTheBooking(t, shape, signals.ApproveRequest{Decision: signals.DecisionApprove}, "book", "12A")
			}},
			parityCell{capability: "modify a call", shape: shape, run: func(t *testing.T) {
				decideTheBooking(t, shape, signals.ApproveRequest{Decision: signals.DecisionModify, Args: json.RawMessage(`{"seat": "14C"}`)}, "book", "14C")
			}},
			parityCell{capability: "replace a call", shape: shape, run: func(t *testing.T) {
				decideTheBooking(t, shape, signals.ApproveRequest{Decision: signals.DecisionReplace,
					Call: &signals.ReplacementCall{Tool: "waitlist", Args: json.RawMessage(`{"seat": "14C"}`)}}, "waitlist", "14C")
			}},
			parityCell{capability: "edit and resume before a write", shape: shape, variant: "tool result", run: func(t *testing.T) {
				tools := editBeforeTheBooking(t, shape, "quote-book", correctTheQuote)
				require.Len(t, tools.requests("/quote"), 1, "the edited quote is not fetched again")
			}},
			parityCell{capability: "edit and resume before a write", shape: shape, variant: "model reply", run: func(t *testing.T) {
				editBeforeTheBooking(t, shape, "llm-book", rewriteTheReply)
			}},
			parityCell{capability: "edit and resume after a write", shape: shape, run: func(t *testing.T) { editAfterTheWrite(t, shape) }},
			parityCell{capability: "fork", shape: shape, variant: "edit with fork", run: func(t *testing.T) { forkAtTheQuote(t, shape) }},
			parityCell{capability: "fork", shape: shape, variant: "from a closed run", run: func(t *testing.T) { forkAClosedRunAtTheQuote(t, shape) }},
		)
	}
	runParity(t, cells)
}

// decideTheBooking has a person settle the booking of 12A waiting for
// approval with decision; then ran (a tool) has run once, for seat, and
// nothing else was written.
func decideTheBooking(t *testing.T, shape string, decision signals.ApproveRequest, ran, seat string) {
	s, tools, run := startPeopleRun(t, shape, "book")
	pending := s.pendingApproval(run)
	require.Equal(t, "book", pending.Tool)
	require.Equal(t, "12A", seatOf(t, pending.Args))
	require.Empty(t, tools.requests("/book"), "nothing is written before the decision")

	decision.CallID, decision.By = pending.CallID, "alice"
	require.NoError(t, s.update(run, signals.Approve, decision))
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", res.Status)
	require.JSONEq(t, `{"booking": {"seat": "`+seat+`", "done_by": "`+ran+`"}}`, string(res.Output))

	writes := tools.requests("/" + ran)
	require.Len(t, writes, 1, "what the person decided ran once")
	require.Equal(t, seat, seatOf(t, json.RawMessage(writes[0].Body)))
	if ran != "book" {
		require.Empty(t, tools.requests("/book"), "the replaced call never ran")
	}
	approvals := nodesOf(s.trace(run), signals.KindApproval)
	require.Len(t, approvals, 1)
	require.Equal(t, []string{pending.CallID}, approvals[0].Parents)
	var decided struct{ Decision, Tool string }
	require.NoError(t, json.Unmarshal(approvals[0].Output, &decided))
	require.Equal(t, decision.Decision, decided.Decision)
	require.Equal(t, ran, decided.Tool)
}

// editBeforeTheBooking: while the booking of 12A waits for approval, a
// person makes an edit (chosen by edit) of an earlier node that has the
// run book 14C instead; the run resumes from that node, the booking waits
// again with 14C and, approved, runs once.
func editBeforeTheBooking(t *testing.T, shape, name string, edit func(*stack, client.WorkflowRun, signals.PendingApproval) signals.EditRequest) *toolServer {
	s, tools, run := startPeopleRun(t, shape, name)
	id := run.GetID()
	held := s.awaitApproval(id, 0, "book")
	require.Equal(t, "12A", seatOf(t, held.Args))

	req := edit(s, run, held)
	req.By = "alice"
	res, err := s.edit(id, req)
	require.NoError(t, err)
	require.Equal(t, 1, res.Generation)
	require.Contains(t, res.Invalidated, held.CallID, "the waiting booking is abandoned")

	again := s.awaitApproval(id, 1, "book")
	require.Equal(t, "14C", seatOf(t, again.Args), "the booking follows the edit")
	require.Empty(t, tools.requests("/book"), "nothing was written while it waited")
	s.approveCall(id, again.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", out.Status)
	require.JSONEq(t, `{"booking": {"seat": "14C", "done_by": "book"}}`, string(out.Output))
	books := tools.requests("/book")
	require.Len(t, books, 1, "one booking, after the edit")
	require.Equal(t, "14C", seatOf(t, json.RawMessage(books[0].Body)))
	return tools
}

// correctTheQuote edits the quote's result to seat 14C.
func correctTheQuote(s *stack, run client.WorkflowRun, _ signals.PendingApproval) signals.EditRequest {
	quote := callsOf(s.trace(run), "quote")[0]
	return signals.EditRequest{NodeID: quote.ID, Output: json.RawMessage(`{"seat": "14C", "price": 10}`)}
}

// rewriteTheReply edits the model reply that asked for the held booking
// to ask for 14C.
func rewriteTheReply(s *stack, run client.WorkflowRun, held signals.PendingApproval) signals.EditRequest {
	tr := s.trace(run)
	reply := nodeOf(s.t, tr, nodeOf(s.t, tr, held.CallID).Parents[0])
	require.Equal(s.t, signals.KindRequest, reply.Kind)
	return signals.EditRequest{NodeID: reply.ID,
		Output: json.RawMessage(`{"tool_calls": [{"name": "book", "args": {"seat": "14C", "_outputPath": "†state.out.booking"}}]}`)}
}

// editAfterTheWrite: the payment has run and the confirmation waits for
// approval when a person corrects the quote's price (not its seat). The
// run resumes from the quote and asks for the identical payment again:
// the effect ledger answers it, so the payment tool sees one request, and
// the confirmation carries the corrected price.
func editAfterTheWrite(t *testing.T, shape string) {
	s, tools, run := startPeopleRun(t, shape, "pay-confirm")
	id := run.GetID()
	held := s.awaitApproval(id, 0, "confirm")
	require.Len(t, tools.requests("/pay"), 1, "the write ran before the edit")
	tr := s.trace(run)
	quote, paid := callsOf(tr, "quote")[0], callsOf(tr, "pay")[0]

	res, err := s.edit(id, signals.EditRequest{NodeID: quote.ID, Output: json.RawMessage(`{"seat": "12A", "price": 12}`), Audit: signals.Audit{By: "bob"}})
	require.NoError(t, err)
	require.Equal(t, 1, res.Generation)
	require.Contains(t, res.Invalidated, paid.ID, "the payment came after the edited quote")
	require.Contains(t, res.Invalidated, held.CallID)

	again := s.awaitApproval(id, 1, "confirm")
	require.JSONEq(t, `12`, string(fieldOf(t, again.Args, "price")), "the confirmation reads the corrected price")
	s.approveCall(id, again.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", out.Status)
	require.JSONEq(t, `{"paid": {"seat": "12A", "done_by": "pay"}, "confirmed": {"price": 12, "done_by": "confirm"}}`, string(out.Output))
	require.Len(t, tools.requests("/pay"), 1, "the write is not run a second time")
	require.Len(t, tools.requests("/confirm"), 1)

	pays := callsOf(s.trace(s.latest(id)), "pay")
	require.Len(t, pays, 2, "the invalidated payment and its re-issue")
	require.Equal(t, paid.ID, pays[1].ReusedFrom, "the ledger answered the re-issued payment")
}

// forkAtTheQuote: while the booking waits for approval, a person forks
// the run at the quote with another seat. The fork runs to completion
// under its own id with its own booking; the source is left as it was and
// completes with its own seat.
func forkAtTheQuote(t *testing.T, shape string) {
	s, tools, run := startPeopleRun(t, shape, "quote-book")
	id := run.GetID()
	held := s.awaitApproval(id, 0, "book")
	before := s.trace(run)
	quote := callsOf(before, "quote")[0]

	res, err := s.edit(id, signals.EditRequest{NodeID: quote.ID, Output: json.RawMessage(`{"seat": "14C", "price": 10}`), Fork: true, Audit: signals.Audit{By: "dana"}})
	require.NoError(t, err)
	forkID := res.WorkflowID
	require.Equal(t, id+"-fork-"+res.NodeID, forkID)
	require.Equal(t, 0, res.Generation, "the source stays in its generation")
	require.Empty(t, res.Invalidated)
	endWithTheTest(s, forkID)
	forkHeld := s.awaitApproval(forkID, 0, "book")
	require.Equal(t, "14C", seatOf(t, forkHeld.Args), "the fork goes on from the edited quote")

	// The source only records the fork and still waits for its own booking.
	st := s.status(s.latest(id))
	require.Equal(t, 0, st.Generation)
	require.Len(t, st.PendingApprovals, 1)
	require.Equal(t, held.CallID, st.PendingApprovals[0].CallID)
	src := s.trace(s.latest(id))
	require.Len(t, src.Nodes, len(before.Nodes)+1)
	for i, n := range before.Nodes {
		require.Equal(t, n.Status, src.Nodes[i].Status, n.ID)
	}

	s.approveCall(id, held.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"booking": {"seat": "12A", "done_by": "book"}}`, string(out.Output), "the source keeps its seat")
	s.approveCall(forkID, forkHeld.CallID)
	forkOut, err := s.result(s.latest(forkID))
	require.NoError(t, err)
	require.Equal(t, "completed", forkOut.Status)
	require.JSONEq(t, `{"booking": {"seat": "14C", "done_by": "book"}}`, string(forkOut.Output))

	books := tools.requests("/book")
	require.Len(t, books, 2, "one booking each")
	require.Equal(t, []string{id, forkID}, []string{books[0].WorkflowID, books[1].WorkflowID})
	require.Len(t, tools.requests("/quote"), 1, "the fork starts from the edited quote")
}

// forkAClosedRunAtTheQuote: a completed run is forked through the input's
// from, at the quote with another seat: the fork runs the source's agent
// to completion under its own id and books its own seat; the closed
// source is left as it was.
func forkAClosedRunAtTheQuote(t *testing.T, shape string) {
	s, tools, run := startPeopleRun(t, shape, "quote-book")
	id := run.GetID()
	s.approveCall(id, s.awaitApproval(id, 0, "book").CallID)
	_, err := s.result(run)
	require.NoError(t, err)
	src := s.trace(run)
	quote := callsOf(src, "quote")[0]

	fork := s.startAny(t, map[string]any{"from": map[string]any{"workflow_id": id, "node_id": quote.ID,
		"edit": map[string]any{"output": map[string]any{"seat": "14C", "price": 10}, "by": "erin"}}})
	forkHeld := s.awaitApproval(fork.GetID(), 0, "book")
	require.Equal(t, "14C", seatOf(t, forkHeld.Args), "the fork goes on from the edited quote")
	s.approveCall(fork.GetID(), forkHeld.CallID)
	forkOut, err := s.result(fork)
	require.NoError(t, err)
	require.Equal(t, "completed", forkOut.Status)
	require.Equal(t, shape+"-quote-book", forkOut.Agent, "the fork runs the source's agent")
	require.JSONEq(t, `{"booking": {"seat": "14C", "done_by": "book"}}`, string(forkOut.Output))

	require.Equal(t, src.Nodes, s.trace(run).Nodes, "the closed source is left as it was")
	books := tools.requests("/book")
	require.Len(t, books, 2, "one booking each")
	require.Equal(t, []string{id, fork.GetID()}, []string{books[0].WorkflowID, books[1].WorkflowID})
	require.Equal(t, "14C", seatOf(t, json.RawMessage(books[1].Body)))
	require.Len(t, tools.requests("/quote"), 1, "the fork starts from the edited quote")
}

// endWithTheTest has the stack terminate a workflow it did not start (a
// fork) if it is still open when the test ends.
func endWithTheTest(s *stack, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = append(s.started, id)
}

// fieldOf is one field of a JSON object.
func fieldOf(t *testing.T, obj json.RawMessage, field string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(obj, &m), "%s", obj)
	return m[field]
}

// seatOf is the seat of a booking's arguments.
func seatOf(t *testing.T, args json.RawMessage) string {
	t.Helper()
	var seat string
	require.NoError(t, json.Unmarshal(fieldOf(t, args, "seat"), &seat), "%s", args)
	return seat
}
