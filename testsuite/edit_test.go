package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Edits on the real server, the real worker and real HTTP tools on
// loopback that count every request they get: the model is the scripted
// test double (internal/testdouble/scriptedmodel), never a real model.

// shopHandler answers the shop's tools: lookup (a read), order (the write:
// every POST counts, toolServer keeps its Idempotency-Key) and confirm.
func shopHandler(w http.ResponseWriter, r *http.Request, n int) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	switch r.URL.Path {
	case "/lookup":
		writeJSON(w, 200, map[string]any{"item": body["item"], "price": 10})
	case "/order":
		writeJSON(w, 200, map[string]any{"order_id": fmt.Sprintf("O-%d", n), "price": body["price"]})
	case "/confirm":
		writeJSON(w, 200, map[string]any{"confirmed": body["order"]})
	default:
		writeJSON(w, 404, map[string]any{"error": "no such tool " + r.URL.Path})
	}
}

// shopConfig: lookup, the write place_order (and place_order_checked, the
// same write with approval: always), confirm with approval: always.
func shopConfig(model, tools string) string {
	return `
model: { base_url: "` + model + `", name: shop }
tools:
  - { name: lookup, http: { method: POST, url: "` + tools + `/lookup" }, parameters: { type: object } }
  - name: place_order
    effect: write
    http: { method: POST, url: "` + tools + `/order" }
    parameters: { type: object, required: [item, qty], properties: { item: { type: string }, qty: { type: integer } } }
  - name: place_order_checked
    effect: write
    approval: always
    http: { method: POST, url: "` + tools + `/order" }
    parameters: { type: object, required: [item, qty], properties: { item: { type: string }, qty: { type: integer } } }
  - { name: confirm, approval: always, http: { method: POST, url: "` + tools + `/confirm" }, parameters: { type: object } }
  - { name: audit, http: { method: POST, url: "` + tools + `/audit", timeout: 1s }, retry: { initial_interval: 100ms }, parameters: { type: object } }
agents:
  - { name: shop, instructions: "Look up, order, confirm.", tools: [lookup, place_order, place_order_checked, confirm, audit] }
`
}

// shopModel is the scripted model (a test double) of the look-up / write /
// confirm run: its turns go by the number of its replies in the
// conversation, so after an edit it says again what it said at that point.
func shopModel(write string, writeArgs map[string]any) scriptedmodel.Script {
	args := maps.Clone(writeArgs)
	args["_outputPath"] = "†state.order"
	return scriptedmodel.Sequence(
		scriptedmodel.CallTurn("lookup", map[string]any{"item": "book", "_outputPath": "†state.x"}),
		scriptedmodel.CallTurn(write, args),
		scriptedmodel.CallTurn("confirm", map[string]any{"order": "†state.order.order_id"}),
		scriptedmodel.CallTurn("final_output", map[string]any{"price": "†state.x.price", "order": "†state.order.order_id"}),
	)
}

// latest is the latest run of a workflow id: queries and updates reach the
// generation an edit continued into.
func (s *stack) latest(id string) client.WorkflowRun {
	return s.client.GetWorkflow(context.Background(), id, "")
}

// edit sends the edit update to the latest run and waits for its answer.
func (s *stack) edit(id string, req signals.EditRequest) (signals.EditResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := s.client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: id, UpdateName: signals.Edit, Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return signals.EditResult{}, err
	}
	var res signals.EditResult
	return res, h.Get(ctx, &res)
}

// awaitApproval waits until the latest run of id, in generation gen, has
// exactly one call waiting for approval, of tool, and answers it.
func (s *stack) awaitApproval(id string, gen int, tool string) signals.PendingApproval {
	s.t.Helper()
	var st signals.Status
	require.Eventually(s.t, func() bool {
		st = signals.Status{}
		v, err := s.client.QueryWorkflow(context.Background(), id, "", signals.QueryStatus)
		return err == nil && v.Get(&st) == nil && st.Generation == gen &&
			len(st.PendingApprovals) == 1 && st.PendingApprovals[0].Tool == tool
	}, 60*time.Second, 100*time.Millisecond, "no %s waiting for approval in generation %d (last status %+v)", tool, gen, st)
	return st.PendingApprovals[0]
}

// approveCall approves a waiting call of the latest run of id.
func (s *stack) approveCall(id, callID string) {
	s.t.Helper()
	require.NoError(s.t, s.updateStarted(s.latest(id), signals.Approve, signals.ApproveRequest{CallID: callID, Decision: signals.DecisionApprove}, nil))
}

// callsOf are the trace's calls of one tool, in trace order.
func callsOf(tr signals.Trace, tool string) []signals.Node {
	var out []signals.Node
	for _, n := range tr.Nodes {
		if n.Kind == signals.KindCall && n.Tool == tool {
			out = append(out, n)
		}
	}
	return out
}

func nodeOf(t *testing.T, tr signals.Trace, id string) signals.Node {
	t.Helper()
	for _, n := range tr.Nodes {
		if n.ID == id {
			return n
		}
	}
	t.Fatalf("no node %s in the trace", id)
	return signals.Node{}
}

func mustRaw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// The look-up / write / confirm run, edited after the write: the run waits
// for confirm's approval; a person corrects the look-up's result. What
// followed it is invalidated, the model is asked again and re-issues the
// identical write, which the effect ledger answers: the order tool saw one
// request in all (a checkpoint-replay design places the order twice).
func TestEditAfterAWriteReusesTheWriteFromTheLedger(t *testing.T) {
	t.Parallel()
	s, tools, run := startShop(t)
	id, firstRunID := run.GetID(), run.GetRunID()

	confirm := s.awaitApproval(id, 0, "confirm")
	require.Len(t, tools.requests("/order"), 1, "the write ran once before the edit")
	tr := s.trace(s.latest(id))
	lookup, write := callsOf(tr, "lookup")[0], callsOf(tr, "place_order")[0]
	require.JSONEq(t, `{"item":"book","price":10}`, string(lookup.Output))

	res, err := s.edit(id, signals.EditRequest{NodeID: lookup.ID, Output: json.RawMessage(`{"item":"book","price":12}`),
		Audit: signals.Audit{By: "alice", Reason: "the price changed"}})
	require.NoError(t, err)
	require.Equal(t, lookup.ID, res.Edited)
	require.Equal(t, 1, res.Generation)
	require.Empty(t, res.WorkflowID)
	require.Contains(t, res.Invalidated, write.ID)
	require.Contains(t, res.Invalidated, confirm.CallID, "the call waiting for approval is abandoned")
	require.NotContains(t, res.Invalidated, lookup.ID, "the edited call stays, with its new output")

	again := s.awaitApproval(id, 1, "confirm")
	require.NotEqual(t, confirm.CallID, again.CallID)
	s.approveCall(id, again.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 12, "order": "O-1"}`, string(out.Output), "the edited price, the one order")
	require.Equal(t, 1, out.Generation)

	require.Len(t, tools.requests("/order"), 1, "the write tool saw exactly one request in all")
	require.Len(t, tools.requests("/lookup"), 1, "the edited look-up is not run again")
	require.Len(t, tools.requests("/confirm"), 1, "only the approved confirm ran")

	latest := s.latest(id)
	tr = s.trace(latest)
	edit := nodeOf(t, tr, res.NodeID)
	require.Equal(t, signals.KindEdit, edit.Kind)
	require.Equal(t, []string{lookup.ID}, edit.Parents)
	require.Equal(t, "alice", edit.By)
	require.Equal(t, "the price changed", edit.Reason)
	require.JSONEq(t, `{"item":"book","price":10}`, string(edit.Before))
	require.JSONEq(t, `{"item":"book","price":12}`, string(edit.After))
	require.JSONEq(t, string(mustRaw(t, map[string]any{"invalidated": res.Invalidated})), string(edit.Output))
	for _, id := range res.Invalidated {
		require.Equal(t, signals.StatusInvalidated, nodeOf(t, tr, id).Status, id)
	}
	require.JSONEq(t, `{"item":"book","price":12}`, string(nodeOf(t, tr, lookup.ID).Output))

	writes := callsOf(tr, "place_order")
	require.Len(t, writes, 2)
	reissued := writes[1]
	require.Equal(t, signals.StatusCompleted, reissued.Status)
	require.Equal(t, write.ID, reissued.ReusedFrom, "the ledger answered the re-issued write")
	require.JSONEq(t, string(write.Output), string(reissued.Output))
	require.JSONEq(t, `{"item":"book","qty":1}`, string(reissued.Args))

	// The model was asked again with the edited result, and nothing of the
	// invalidated steps.
	reqs := s.model.Requests()
	require.Len(t, reqs, 6, "look-up, write, confirm; after the edit: write, confirm, answer")
	results := scriptedmodel.LastToolResults(reqs[3])
	require.Len(t, results, 1)
	require.Equal(t, "lookup", results[0].Name)
	require.JSONEq(t, `{"item":"book","price":12}`, results[0].Content)
	require.Equal(t, 1, scriptedmodel.AssistantTurns(reqs[3]))

	recordAndReplay(t, s.client.GetWorkflow(context.Background(), id, firstRunID), "edit_ledger_reuse_gen0")
	recordAndReplay(t, latest, "edit_ledger_reuse_gen1")
}

// The same run, edited before the write: the write waits for approval
// with the looked-up price in its arguments (a †state reference); the
// look-up is corrected; the write is asked again with the edited price,
// approved, and runs once, with that price.
func TestEditBeforeAnApprovedWriteRunsItOnceWithTheEditedValue(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, shopHandler)
	s := newStack(t, shopConfig("{{MODEL}}", tools.URL), map[string]scriptedmodel.Script{
		"shop": shopModel("place_order_checked", map[string]any{"item": "book", "qty": 1, "price": "†state.x.price"}),
	})
	run := s.start(workflows.AgentInput{Agent: "shop", Task: "buy the book"})
	id, firstRunID := run.GetID(), run.GetRunID()

	held := s.awaitApproval(id, 0, "place_order_checked")
	var args map[string]any
	require.NoError(t, json.Unmarshal(held.Args, &args))
	require.EqualValues(t, 10, args["price"], "the reference is resolved before approval")
	require.Empty(t, tools.requests("/order"))
	lookup := callsOf(s.trace(s.latest(id)), "lookup")[0]

	res, err := s.edit(id, signals.EditRequest{NodeID: lookup.ID, Output: json.RawMessage(`{"item":"book","price":12}`), Audit: signals.Audit{By: "bob"}})
	require.NoError(t, err)
	require.Equal(t, 1, res.Generation)
	require.Contains(t, res.Invalidated, held.CallID)

	again := s.awaitApproval(id, 1, "place_order_checked")
	require.NotEqual(t, held.CallID, again.CallID)
	require.NoError(t, json.Unmarshal(again.Args, &args))
	require.EqualValues(t, 12, args["price"], "the write read the edited look-up")
	require.Empty(t, tools.requests("/order"), "nothing was written while it waited")
	s.approveCall(id, again.CallID)
	c := s.awaitApproval(id, 1, "confirm")
	s.approveCall(id, c.CallID)

	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 12, "order": "O-1"}`, string(out.Output))
	orders := tools.requests("/order")
	require.Len(t, orders, 1, "one write, after the edit")
	require.JSONEq(t, `{"item":"book","qty":1,"price":12}`, orders[0].Body)

	tr := s.trace(s.latest(id))
	first := nodeOf(t, tr, held.CallID)
	require.Equal(t, signals.StatusInvalidated, first.Status)
	second := nodeOf(t, tr, again.CallID)
	require.Equal(t, signals.StatusCompleted, second.Status)
	require.Empty(t, second.ReusedFrom, "it had never run: nothing to reuse")

	recordAndReplay(t, s.client.GetWorkflow(context.Background(), id, firstRunID), "edit_interrupts_approval_gen0")
	recordAndReplay(t, s.latest(id), "edit_interrupts_approval_gen1")
}

// Two calls of one reply, and a third that reads the first's result
// (†state.a): editing the first's output runs the third again with it,
// and neither the first nor its independent sibling again.
func TestEditOfOneCallKeepsItsIndependentSibling(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		switch r.URL.Path {
		case "/a":
			writeJSON(w, 200, map[string]any{"v": "a"})
		case "/b":
			writeJSON(w, 200, map[string]any{"v": "b", "n": n})
		case "/c":
			writeJSON(w, 200, map[string]any{"saw": body["from_a"], "n": n})
		default:
			writeJSON(w, 200, map[string]any{"ok": true})
		}
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: siblings }
tools:
  - { name: a, http: { method: POST, url: "` + tools.URL + `/a" }, parameters: { type: object } }
  - { name: b, http: { method: POST, url: "` + tools.URL + `/b" }, parameters: { type: object } }
  - { name: c, http: { method: POST, url: "` + tools.URL + `/c" }, parameters: { type: object } }
  - { name: confirm, approval: always, http: { method: POST, url: "` + tools.URL + `/confirm" }, parameters: { type: object } }
agents:
  - { name: siblings, instructions: Call., tools: [a, b, c, confirm] }
`
	script := scriptedmodel.Sequence(
		scriptedmodel.CallsTurn(
			scriptedmodel.NewCall("a", map[string]any{"q": 1, "_outputPath": "†state.a"}),
			scriptedmodel.NewCall("b", map[string]any{"q": 2, "_outputPath": "†state.b"}),
			scriptedmodel.NewCall("c", map[string]any{"from_a": "†state.a", "_outputPath": "†state.c"}),
		),
		scriptedmodel.CallTurn("confirm", map[string]any{}),
		scriptedmodel.CallTurn("final_output", map[string]any{"a": "†state.a", "b": "†state.b", "c": "†state.c"}),
	)
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"siblings": script})
	run := s.start(workflows.AgentInput{Agent: "siblings", Task: "call a, b and c"})
	id := run.GetID()

	s.awaitApproval(id, 0, "confirm")
	tr := s.trace(s.latest(id))
	a, b, c := callsOf(tr, "a")[0], callsOf(tr, "b")[0], callsOf(tr, "c")[0]
	res, err := s.edit(id, signals.EditRequest{NodeID: a.ID, Output: json.RawMessage(`{"v":"edited"}`)})
	require.NoError(t, err)
	require.Contains(t, res.Invalidated, c.ID, "c read a's result")
	require.NotContains(t, res.Invalidated, b.ID, "b did not")

	again := s.awaitApproval(id, 1, "confirm")
	s.approveCall(id, again.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"a": {"v": "edited"}, "b": {"v": "b", "n": 1}, "c": {"saw": {"v": "edited"}, "n": 2}}`, string(out.Output))

	require.Len(t, tools.requests("/a"), 1, "the edited call is not run again")
	require.Len(t, tools.requests("/b"), 1, "the independent sibling is not run again")
	cs := tools.requests("/c")
	require.Len(t, cs, 2, "the dependent sibling runs again")
	require.JSONEq(t, `{"from_a":{"v":"edited"}}`, cs[1].Body)

	tr = s.trace(s.latest(id))
	require.Equal(t, signals.StatusCompleted, nodeOf(t, tr, b.ID).Status)
	require.Equal(t, signals.StatusInvalidated, nodeOf(t, tr, c.ID).Status)
	require.Len(t, callsOf(tr, "b"), 1, "b was not re-issued at all")
	require.Len(t, callsOf(tr, "c"), 2)
	recordAndReplay(t, s.latest(id), "edit_sibling_kept_gen1")
}

// Edits the run refuses, through the update: a clear reason, and the run
// unchanged (same generation, same trace, same phase). Then an edit of a
// node an edit invalidated, two edits racing, and an edit of a closed run.
func TestBadEditsAreRefusedAndLeaveTheRunAsItWas(t *testing.T) {
	t.Parallel()
	s, tools, run := startShop(t)
	id := run.GetID()
	confirm := s.awaitApproval(id, 0, "confirm")
	before := s.trace(s.latest(id))
	lookup, write := callsOf(before, "lookup")[0], callsOf(before, "place_order")[0]

	for _, tt := range []struct {
		name string
		req  signals.EditRequest
		want string
	}{
		{"unknown node", signals.EditRequest{NodeID: "n99", Output: json.RawMessage(`1`)}, `"n99" is not a node of this run`},
		{"a waiting call's output", signals.EditRequest{NodeID: confirm.CallID, Output: json.RawMessage(`{}`)},
			confirm.CallID + ` waits for approval and has not run, so it has no output`},
		{"a waiting call forked", signals.EditRequest{NodeID: confirm.CallID, Args: json.RawMessage(`{"order": "O-9"}`), Fork: true},
			confirm.CallID + ` waits for approval: fork from a node that has finished`},
		{"args against the schema", signals.EditRequest{NodeID: write.ID, Args: json.RawMessage(`{"item": "book", "qty": "many"}`)},
			`"args" for place_order`},
		{"args missing a required field", signals.EditRequest{NodeID: write.ID, Args: json.RawMessage(`{"qty": 1}`)},
			`"args" for place_order`},
		{"args setting the output path", signals.EditRequest{NodeID: write.ID, Args: json.RawMessage(`{"item": "book", "qty": 1, "_outputPath": "†state.y"}`)},
			`may not set _outputPath`},
		{"output and args", signals.EditRequest{NodeID: write.ID, Output: json.RawMessage(`1`), Args: json.RawMessage(`{}`)}, `give "output" or "args", not both`},
		{"neither", signals.EditRequest{NodeID: write.ID}, `give "output"`},
		{"a request's unknown tool", signals.EditRequest{NodeID: "n2", Output: json.RawMessage(`{"tool_calls": [{"name": "refund"}]}`)}, `unknown tool "refund"`},
	} {
		_, err := s.edit(id, tt.req)
		require.ErrorContains(t, err, tt.want, tt.name)
	}
	st := s.status(s.latest(id))
	require.Equal(t, 0, st.Generation, "no refused edit continued the run")
	require.Equal(t, signals.PhaseAwaitingApproval, st.Phase)
	require.Equal(t, before.Nodes, s.trace(s.latest(id)).Nodes, "no refused edit changed the trace")

	// A valid edit, then an edit of a node it invalidated.
	res, err := s.edit(id, signals.EditRequest{NodeID: lookup.ID, Output: json.RawMessage(`{"item":"book","price":11}`)})
	require.NoError(t, err)
	require.Equal(t, 1, res.Generation)
	require.Contains(t, res.Invalidated, write.ID)
	s.awaitApproval(id, 1, "confirm")
	_, err = s.edit(id, signals.EditRequest{NodeID: write.ID, Output: json.RawMessage(`{"order_id":"O-7"}`)})
	require.ErrorContains(t, err, write.ID+" was invalidated by an earlier edit")
	require.Equal(t, 1, s.status(s.latest(id)).Generation)

	// Two edits of the look-up at once: one applies; the other is refused
	// naming the generation the run goes on in, or applies in that one
	// (one that reached the next generation while it verified the state it
	// carries waited for it: docs/messages.md). The run continues as new in
	// a workflow task apart from the one that took an edit, so the server
	// never aborts one ("unexpected workflow task failure").
	type answer struct {
		res signals.EditResult
		err error
	}
	answers := make(chan answer, 2)
	for _, price := range []int{13, 14} {
		go func() {
			r, err := s.edit(id, signals.EditRequest{NodeID: lookup.ID, Output: mustRaw(t, map[string]any{"item": "book", "price": price})})
			answers <- answer{r, err}
		}()
	}
	var applied []signals.EditResult
	for range 2 {
		a := <-answers
		if a.err != nil {
			t.Logf("racing edit refused: %v", a.err)
			require.Condition(t, func() bool {
				return strings.Contains(a.err.Error(), "an edit of "+lookup.ID+" is being applied; the run goes on in generation 2")
			}, "racing edit refused for another reason: %v", a.err)
			continue
		}
		applied = append(applied, a.res)
	}
	require.NotEmpty(t, applied, "one of the racing edits applies")
	gens := []int{}
	for _, a := range applied {
		gens = append(gens, a.Generation)
	}
	slices.Sort(gens)
	require.Equal(t, []int{2, 3}[:len(gens)], gens, "each applied edit is one generation")
	t.Logf("racing edits: %d applied (generations %v)", len(applied), gens)
	last := 1 + len(applied)

	c := s.awaitApproval(id, last, "confirm")
	s.approveCall(id, c.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, last, out.Generation)
	var o struct{ Price int }
	require.NoError(t, json.Unmarshal(out.Output, &o))
	require.Contains(t, []int{13, 14}, o.Price, "the output has the last applied edit's price")
	require.Len(t, tools.requests("/order"), 1, "one write through three generations")

	// A closed run takes no edit: Temporal refuses the update itself.
	_, err = s.edit(id, signals.EditRequest{NodeID: lookup.ID, Output: json.RawMessage(`{"price": 1}`)})
	require.Error(t, err)
	t.Logf("edit of a closed run: %v", err)
	require.ErrorContains(t, err, "workflow execution already completed")
	var notFound *serviceerror.NotFound
	require.ErrorAs(t, err, &notFound, "the error `unstuck edit` explains with the fork it can still make")
}

// Nodes that have not finished cannot be edited: the model request in
// flight, a call running, a call waiting for the one it reads.
func TestEditsOfNodesStillRunningAreRefused(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	modelGate := make(chan struct{})
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.URL.Path == "/slow" {
			<-gate
		}
		writeJSON(w, 200, map[string]any{"v": r.URL.Path})
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: gated }
tools:
  - { name: slow, http: { method: POST, url: "` + tools.URL + `/slow" }, parameters: { type: object } }
  - { name: after, http: { method: POST, url: "` + tools.URL + `/after" }, parameters: { type: object } }
agents:
  - { name: gated, instructions: Wait., tools: [slow, after] }
`
	turns := scriptedmodel.Sequence(
		scriptedmodel.CallsTurn(
			scriptedmodel.NewCall("slow", map[string]any{"_outputPath": "†state.s"}),
			scriptedmodel.NewCall("after", map[string]any{"s": "†state.s"}),
		),
		scriptedmodel.CallTurn("final_output", map[string]any{"done": true}),
	)
	script := func(req openaiRequest) scriptedmodel.Turn {
		if scriptedmodel.AssistantTurns(req) == 0 {
			<-modelGate
		}
		return turns(req)
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"gated": script})
	var modelOnce, gateOnce sync.Once
	openModel := func() { modelOnce.Do(func() { close(modelGate) }) }
	openGate := func() { gateOnce.Do(func() { close(gate) }) }
	t.Cleanup(func() { openModel(); openGate() })
	run := s.start(workflows.AgentInput{Agent: "gated", Task: "wait"})
	id := run.GetID()

	require.Eventually(t, func() bool { return s.model.RequestCount() == 1 }, 20*time.Second, 50*time.Millisecond)
	tr := s.trace(s.latest(id))
	req := nodesOf(tr, signals.KindRequest)[0]
	require.Equal(t, signals.StatusRunning, req.Status)
	_, err := s.edit(id, signals.EditRequest{NodeID: req.ID, Output: json.RawMessage(`"think again"`)})
	require.ErrorContains(t, err, req.ID+" is running: edit it once it has finished")

	openModel()
	require.Eventually(t, func() bool { return len(tools.requests("/slow")) == 1 }, 20*time.Second, 50*time.Millisecond)
	tr = s.trace(s.latest(id))
	slow, after := callsOf(tr, "slow")[0], callsOf(tr, "after")[0]
	require.Equal(t, signals.StatusRunning, slow.Status)
	require.Equal(t, signals.StatusPending, after.Status, "after waits for what slow writes")
	_, err = s.edit(id, signals.EditRequest{NodeID: slow.ID, Output: json.RawMessage(`{"v": "x"}`)})
	require.ErrorContains(t, err, slow.ID+" is running: edit it once it has finished")
	_, err = s.edit(id, signals.EditRequest{NodeID: after.ID, Args: json.RawMessage(`{"s": 1}`)})
	require.ErrorContains(t, err, after.ID+" is pending: edit it once it has finished")
	require.Equal(t, 0, s.status(s.latest(id)).Generation)

	openGate()
	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(out.Output))
	require.Equal(t, 0, out.Generation)
	require.Len(t, tools.requests("/slow"), 1)
	require.Len(t, tools.requests("/after"), 1)
}

// An edit, then the worker SIGKILLed while the resumed run is in a call:
// a new worker finishes the run, the re-issued write is still answered by
// the effect ledger (the new worker replays the resumed generation and
// makes the same decision), and the order tool saw one request in all.
// The edit goes through the CLI, `unstuck edit --json`.
func TestEditThenWorkerCrashInTheResumedRunWritesOnce(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 1)
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path != "/audit" {
			shopHandler(w, r, n)
			return
		}
		if n == 2 { // the resumed run's audit: slow enough to kill the worker in it
			arrived <- struct{}{}
			time.Sleep(800 * time.Millisecond)
		}
		writeJSON(w, 200, map[string]any{"audited": n})
	})
	turns := scriptedmodel.Sequence(
		scriptedmodel.CallTurn("lookup", map[string]any{"item": "book", "_outputPath": "†state.x"}),
		scriptedmodel.CallsTurn(
			scriptedmodel.NewCall("place_order", map[string]any{"item": "book", "qty": 1, "_outputPath": "†state.order"}),
			scriptedmodel.NewCall("audit", map[string]any{"item": "book"}),
		),
		scriptedmodel.CallTurn("confirm", map[string]any{"order": "†state.order.order_id"}),
		scriptedmodel.CallTurn("final_output", map[string]any{"price": "†state.x.price", "order": "†state.order.order_id"}),
	)
	model, err := scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{"shop": turns}, "", scriptedmodel.WithLogf(t.Logf))
	require.NoError(t, err)
	t.Cleanup(func() { _ = model.Close() })

	workers := newWorkerProcesses(t, shopConfig(model.URL(), tools.URL), "edit-crash")
	s := &stack{t: t, model: model, queue: workers.queue, client: serverClient}

	first := workers.start()
	run := workers.run(workflows.AgentInput{Agent: "shop", Task: "buy the book"})
	id := run.GetID()
	s.awaitApproval(id, 0, "confirm")
	lookup, write := callsOf(s.trace(s.latest(id)), "lookup")[0], callsOf(s.trace(s.latest(id)), "place_order")[0]

	out, err := exec.Command(filepath.Join(workers.bins, "unstuck"), "edit", id, "--node", lookup.ID,
		"--output", `{"item": "book", "price": 12}`, "--by", "alice", "--reason", "price changed", "--json",
		"--address", serverAddress).CombinedOutput()
	require.NoError(t, err, string(out))
	var res signals.EditResult
	require.NoError(t, json.Unmarshal(out, &res), string(out))
	require.Equal(t, 1, res.Generation)
	require.Contains(t, res.Invalidated, write.ID)

	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the resumed run never called audit")
	}
	require.NoError(t, first.Process.Kill()) // SIGKILL, in the resumed run's call
	_ = first.Wait()
	workers.start()

	c := s.awaitApproval(id, 1, "confirm")
	s.approveCall(id, c.CallID)
	result := awaitResult(t, run, 90*time.Second)
	require.JSONEq(t, `{"price": 12, "order": "O-1"}`, string(result.Output))
	require.Equal(t, 1, result.Generation)

	require.Len(t, tools.requests("/order"), 1, "the write happened once, across the edit and the crash")
	require.GreaterOrEqual(t, len(tools.requests("/audit")), 3, "the audit was retried after the crash")
	writes := callsOf(s.trace(s.latest(id)), "place_order")
	require.Len(t, writes, 2)
	require.Equal(t, write.ID, writes[1].ReusedFrom)
}

// An edit while the model thinks: the request in flight is abandoned (its
// reply would answer a conversation the edit changed), the edit is
// answered without waiting for the model, and the run goes on from the
// edited look-up, its write still placed once.
func TestEditWhileTheModelThinksAbandonsTheRequest(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, shopHandler)
	hold := make(chan struct{})
	var holdOnce sync.Once
	held := make(chan struct{}, 1)
	var thirdTurns atomic.Int32
	turns := shopModel("place_order", map[string]any{"item": "book", "qty": 1})
	script := func(req openaiRequest) scriptedmodel.Turn {
		// The first request after the write (for confirm) hangs until the
		// test ends; it is the one the edit abandons.
		if scriptedmodel.AssistantTurns(req) == 2 && thirdTurns.Add(1) == 1 {
			held <- struct{}{}
			<-hold
		}
		return turns(req)
	}
	s := newStack(t, shopConfig("{{MODEL}}", tools.URL), map[string]scriptedmodel.Script{"shop": script})
	t.Cleanup(func() { holdOnce.Do(func() { close(hold) }) }) // before the model server closes
	run := s.start(workflows.AgentInput{Agent: "shop", Task: "buy the book"})
	id := run.GetID()
	select {
	case <-held:
	case <-time.After(20 * time.Second):
		t.Fatal("the model was never asked for its third reply")
	}
	tr := s.trace(s.latest(id))
	lookup, write := callsOf(tr, "lookup")[0], callsOf(tr, "place_order")[0]
	reqs := nodesOf(tr, signals.KindRequest)
	thinking := reqs[len(reqs)-1]
	require.Equal(t, signals.StatusRunning, thinking.Status)

	began := time.Now()
	res, err := s.edit(id, signals.EditRequest{NodeID: lookup.ID, Output: json.RawMessage(`{"item":"book","price":12}`)})
	require.NoError(t, err)
	require.Less(t, time.Since(began), 10*time.Second, "the edit does not wait for the model")
	require.Contains(t, res.Invalidated, thinking.ID)
	require.Contains(t, res.Invalidated, write.ID)

	c := s.awaitApproval(id, 1, "confirm")
	s.approveCall(id, c.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 12, "order": "O-1"}`, string(out.Output))
	require.Equal(t, 4, out.Steps, "the step counter went back to the edited step: look-up, write, confirm, answer")
	require.Len(t, tools.requests("/order"), 1)
	tr = s.trace(s.latest(id))
	require.Equal(t, signals.StatusInvalidated, nodeOf(t, tr, thinking.ID).Status)
	require.Equal(t, write.ID, callsOf(tr, "place_order")[1].ReusedFrom)
}

// Editing a write's arguments runs it again with them: the same arguments
// are answered by the ledger (nothing is written twice), other arguments
// are a new write, which runs, under its own Idempotency-Key.
func TestEditOfAWritesArguments(t *testing.T) {
	t.Parallel()
	s, tools, run := startShop(t)
	id := run.GetID()
	s.awaitApproval(id, 0, "confirm")
	write := callsOf(s.trace(s.latest(id)), "place_order")[0]

	res, err := s.edit(id, signals.EditRequest{NodeID: write.ID, Args: json.RawMessage(`{"qty": 1, "item": "book"}`), Audit: signals.Audit{By: "fay"}})
	require.NoError(t, err)
	require.Contains(t, res.Invalidated, write.ID, "the call runs again")
	s.awaitApproval(id, 1, "confirm")
	require.Len(t, tools.requests("/order"), 1, "the same arguments: answered by the ledger")
	tr := s.trace(s.latest(id))
	same := callsOf(tr, "place_order")[1]
	require.Equal(t, write.ID, same.ReusedFrom)
	edit := nodeOf(t, tr, res.NodeID)
	require.JSONEq(t, `{"args": {"item": "book", "qty": 1}}`, string(edit.Before))
	require.Equal(t, "fay", edit.By)

	res, err = s.edit(id, signals.EditRequest{NodeID: same.ID, Args: json.RawMessage(`{"item": "book", "qty": 2}`)})
	require.NoError(t, err)
	require.Equal(t, 2, res.Generation)
	c := s.awaitApproval(id, 2, "confirm")
	orders := tools.requests("/order")
	require.Len(t, orders, 2, "other arguments: a new write")
	require.JSONEq(t, `{"item":"book","qty":2}`, orders[1].Body)
	require.NotEqual(t, orders[0].IdempotencyKey, orders[1].IdempotencyKey)
	s.approveCall(id, c.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 10, "order": "O-2"}`, string(out.Output))
	// The model hears a person changed the call.
	reqs := s.model.Requests()
	var told bool
	for _, m := range reqs[len(reqs)-1].Messages {
		told = told || (m.Role == "tool" && strings.Contains(m.Content, "changed_by_a_person") && strings.Contains(m.Content, `"qty":2`))
	}
	require.True(t, told, "the model is told a person changed the write's arguments")
}

// The signal form of edit: fire and forget; a valid one is applied as the
// update's is, an invalid one is recorded in the trace and ignored.
func TestEditBySignal(t *testing.T) {
	t.Parallel()
	s, tools, run := startShop(t)
	id := run.GetID()
	s.awaitApproval(id, 0, "confirm")
	lookup := callsOf(s.trace(s.latest(id)), "lookup")[0]

	ctx := context.Background()
	require.NoError(t, s.client.SignalWorkflow(ctx, id, "", signals.Edit, signals.EditRequest{NodeID: "n99", Output: json.RawMessage(`1`), Audit: signals.Audit{By: "gil"}}))
	require.Eventually(t, func() bool {
		for _, n := range s.trace(s.latest(id)).Nodes {
			if n.Kind == signals.KindHuman && n.Status == signals.StatusSkipped && strings.Contains(n.Error, `"n99" is not a node of this run`) {
				return true
			}
		}
		return false
	}, 20*time.Second, 100*time.Millisecond, "the bad edit signal is recorded")
	require.Equal(t, 0, s.status(s.latest(id)).Generation)

	require.NoError(t, s.client.SignalWorkflow(ctx, id, "", signals.Edit, signals.EditRequest{NodeID: lookup.ID,
		Output: json.RawMessage(`{"item":"book","price":12}`), Audit: signals.Audit{By: "gil", Reason: "by signal"}}))
	c := s.awaitApproval(id, 1, "confirm")
	s.approveCall(id, c.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 12, "order": "O-1"}`, string(out.Output))
	require.Len(t, tools.requests("/order"), 1)
	edits := nodesOf(s.trace(s.latest(id)), signals.KindEdit)
	require.Len(t, edits, 1)
	require.Equal(t, "gil", edits[0].By)
	require.Equal(t, "by signal", edits[0].Reason)
}

// An edit while the write runs: the run waits for the write to return (so
// the ledger knows what it did), then applies the edit; the re-issued
// write is answered by the ledger.
func TestEditWhileAWriteRunsWaitsForIt(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	var gateOnce sync.Once
	openGate := func() { gateOnce.Do(func() { close(gate) }) }
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/order" {
			<-gate
		}
		shopHandler(w, r, n)
	})
	t.Cleanup(openGate)
	s := newStack(t, shopConfig("{{MODEL}}", tools.URL), map[string]scriptedmodel.Script{
		"shop": shopModel("place_order", map[string]any{"item": "book", "qty": 1}),
	})
	run := s.start(workflows.AgentInput{Agent: "shop", Task: "buy the book"})
	id := run.GetID()
	require.Eventually(t, func() bool { return len(tools.requests("/order")) == 1 }, 20*time.Second, 50*time.Millisecond)
	tr := s.trace(s.latest(id))
	lookup, write := callsOf(tr, "lookup")[0], callsOf(tr, "place_order")[0]
	require.Equal(t, signals.StatusRunning, write.Status)

	type answer struct {
		res signals.EditResult
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		res, err := s.edit(id, signals.EditRequest{NodeID: lookup.ID, Output: json.RawMessage(`{"item":"book","price":12}`)})
		answered <- answer{res, err}
	}()
	select {
	case a := <-answered:
		t.Fatalf("the edit was answered while the write ran: %+v", a)
	case <-time.After(700 * time.Millisecond):
	}
	openGate()
	var a answer
	select {
	case a = <-answered:
	case <-time.After(20 * time.Second):
		t.Fatal("the edit was never answered")
	}
	require.NoError(t, a.err)
	require.Contains(t, a.res.Invalidated, write.ID)

	c := s.awaitApproval(id, 1, "confirm")
	s.approveCall(id, c.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 12, "order": "O-1"}`, string(out.Output))
	require.Len(t, tools.requests("/order"), 1, "the write that ran during the edit is not run again")
	tr = s.trace(s.latest(id))
	first := nodeOf(t, tr, write.ID)
	require.Equal(t, signals.StatusInvalidated, first.Status)
	require.JSONEq(t, `{"order_id":"O-1","price":null}`, string(first.Output), "what the write returned is recorded")
	require.Equal(t, write.ID, callsOf(tr, "place_order")[1].ReusedFrom)
}

// An edit of the task starts the run over: the look-up runs again, the
// identical write is answered by the ledger.
func TestEditOfTheTaskStartsOverWithoutWritingTwice(t *testing.T) {
	t.Parallel()
	s, tools, run := startShop(t)
	id := run.GetID()
	s.awaitApproval(id, 0, "confirm")
	tr := s.trace(s.latest(id))
	task, write := tr.Nodes[0], callsOf(tr, "place_order")[0]
	require.Equal(t, signals.KindTask, task.Kind)

	res, err := s.edit(id, signals.EditRequest{NodeID: task.ID, Output: json.RawMessage(`"buy the book, gift-wrapped"`)})
	require.NoError(t, err)
	for _, n := range tr.Nodes[1:] {
		require.Contains(t, res.Invalidated, n.ID, "everything after the task")
	}
	c := s.awaitApproval(id, 1, "confirm")
	s.approveCall(id, c.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 10, "order": "O-1"}`, string(out.Output))
	require.Len(t, tools.requests("/lookup"), 2, "the look-up (a read) runs again")
	require.Len(t, tools.requests("/order"), 1, "the identical write does not")
	tr = s.trace(s.latest(id))
	require.Equal(t, write.ID, callsOf(tr, "place_order")[1].ReusedFrom)
	reqs := s.model.Requests()
	require.Equal(t, "buy the book, gift-wrapped", scriptedmodel.Task(reqs[len(reqs)-3]), "the model reads the edited task")
}

// An edit of a write waiting for approval changes its arguments in place:
// no continue-as-new, the run goes on waiting, and the approved write
// runs once, with the edited arguments. Arguments the tool's schema
// refuses are refused.
func TestEditOfAWaitingWriteChangesItsArgumentsInPlace(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, shopHandler)
	s := newStack(t, shopConfig("{{MODEL}}", tools.URL), map[string]scriptedmodel.Script{
		"shop": shopModel("place_order_checked", map[string]any{"item": "book", "qty": 1}),
	})
	run := s.start(workflows.AgentInput{Agent: "shop", Task: "buy the book"})
	id := run.GetID()
	held := s.awaitApproval(id, 0, "place_order_checked")

	_, err := s.edit(id, signals.EditRequest{NodeID: held.CallID, Args: json.RawMessage(`{"item": "book"}`)})
	require.ErrorContains(t, err, `"args" for place_order_checked`)
	_, err = s.edit(id, signals.EditRequest{NodeID: held.CallID, Args: json.RawMessage(`{"item": "book", "qty": "†state.x.price"}`)})
	require.ErrorContains(t, err, "give \"args\" as plain values")
	res, err := s.edit(id, signals.EditRequest{NodeID: held.CallID, Args: json.RawMessage(`{"item": "book", "qty": 3}`), Audit: signals.Audit{By: "hal", Reason: "three copies"}})
	require.NoError(t, err)
	require.Equal(t, 0, res.Generation)
	require.Empty(t, res.Invalidated)

	again := s.awaitApproval(id, 0, "place_order_checked")
	require.Equal(t, held.CallID, again.CallID, "the same call goes on waiting")
	require.JSONEq(t, `{"item": "book", "qty": 3}`, string(again.Args))
	s.approveCall(id, again.CallID)
	s.approveCall(id, s.awaitApproval(id, 0, "confirm").CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, 0, out.Generation)
	orders := tools.requests("/order")
	require.Len(t, orders, 1)
	require.JSONEq(t, `{"item":"book","qty":3}`, orders[0].Body)
	edit := nodeOf(t, s.trace(s.latest(id)), res.NodeID)
	require.Equal(t, "hal", edit.By)
	require.JSONEq(t, `{"args": {"item": "book", "qty": 1}}`, string(edit.Before))
	require.JSONEq(t, `{"args": {"item": "book", "qty": 3}}`, string(edit.After))
}

// startShop starts the shop agent on a fresh stack and tool server: it
// looks the book up, places the order (a write) and asks to confirm, which
// waits for approval.
func startShop(t *testing.T) (*stack, *toolServer, client.WorkflowRun) {
	tools := newToolServer(t, shopHandler)
	s := newStack(t, shopConfig("{{MODEL}}", tools.URL), map[string]scriptedmodel.Script{
		"shop": shopModel("place_order", map[string]any{"item": "book", "qty": 1}),
	})
	return s, tools, s.start(workflows.AgentInput{Agent: "shop", Task: "buy the book"})
}
