package testsuite

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// The limits with small values: a reply of four calls where two may run,
// one at a time. Two run, in turn; two are answered. The history is kept:
// it holds the limits version marker.
func TestSmallLimitsAnswerAndQueue(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		time.Sleep(100 * time.Millisecond)
		writeJSON(w, 200, map[string]any{"ok": true})
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: small }
tools:
  - { name: mark, http: { method: POST, url: "` + tools.URL + `/mark" } }
agents:
  - { name: marker, instructions: Mark., tools: [mark], policies: { limits: { calls_per_reply: 2, calls_in_flight: 1 } } }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"small": scriptedmodel.Sequence(
		scriptedmodel.CallsTurn(
			scriptedmodel.NewCall("mark", map[string]int{"i": 1}), scriptedmodel.NewCall("mark", map[string]int{"i": 2}),
			scriptedmodel.NewCall("mark", map[string]int{"i": 3}), scriptedmodel.NewCall("mark", map[string]int{"i": 4}),
		),
		scriptedmodel.Reply("marked"),
	)})
	run := s.start(workflows.AgentInput{Agent: "marker", Task: "mark four"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `"marked"`, string(res.Output))
	require.Len(t, tools.requests("/mark"), 2)
	calls := nodesOf(s.trace(run), signals.KindCall)
	require.Len(t, calls, 4)
	require.Contains(t, calls[3].Error, "over the limit of 2 calls per reply")
	recordAndReplay(t, run, "limits_small")
}

// A graph tool node that needs approval waits for a person like a model's
// call does, and runs what was approved. The history is kept.
func TestGraphToolNodeApprovalOnTheServer(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		var a map[string]any
		_ = json.NewDecoder(r.Body).Decode(&a)
		writeJSON(w, 200, a)
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: pay, http: { method: POST, url: "` + tools.URL + `/pay" }, effect: write, approval: always,
      parameters: { type: object, required: [amount], properties: { amount: { type: integer } } } }
agents:
  - name: payer
    instructions: Pay.
    tools: [pay]
    graph:
      start: P
      nodes: { P: { tool: pay, args: { amount: "†input.amount" }, output_path: "†state.paid" }, E: { end: true, output: "†state.paid" } }
      edges: [ { from: P, to: E } ]
`
	s := newStack(t, cfg, nil)
	run := s.start(workflows.AgentInput{Agent: "payer", Task: "pay", Input: json.RawMessage(`{"amount": "12"}`)})
	pending := s.pendingApproval(run)
	require.JSONEq(t, `{"amount": 12}`, string(pending.Args), "repaired by rule before the person sees it")
	require.NoError(t, s.update(run, signals.Approve, signals.ApproveRequest{CallID: pending.CallID, Decision: signals.DecisionModify, Args: json.RawMessage(`{"amount": 10}`)}))
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"amount": 10}`, string(res.Output))
	require.Len(t, tools.requests("/pay"), 1)
	recordAndReplay(t, run, "graph_tool_approval")
}

// A graph run edited on the server: the quote node's output is changed
// while the payment waits for approval; the walk goes on from the quote
// (not fetched again) and the payment runs once, with the edited amount.
// The history of the continued run is kept.
func TestGraphEditOnTheServer(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		var a map[string]any
		_ = json.NewDecoder(r.Body).Decode(&a)
		if r.URL.Path == "/quote" {
			a = map[string]any{"amount": 12}
		}
		writeJSON(w, 200, a)
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: quote, http: { method: POST, url: "` + tools.URL + `/quote" } }
  - { name: pay, http: { method: POST, url: "` + tools.URL + `/pay" }, effect: write, approval: always,
      parameters: { type: object, required: [amount], properties: { amount: { type: integer } } } }
agents:
  - name: payer
    instructions: Pay.
    tools: [quote, pay]
    graph:
      start: Q
      nodes:
        Q: { tool: quote, output_path: "†state.q" }
        P: { tool: pay, args: { amount: "†state.q.amount" }, output_path: "†state.paid" }
        E: { end: true, output: "†state.paid" }
      edges: [ { from: Q, to: P }, { from: P, to: E } ]
`
	s := newStack(t, cfg, nil)
	run := s.start(workflows.AgentInput{Agent: "payer", Task: "pay"})
	id := run.GetID()
	pending := s.pendingApproval(run)
	require.JSONEq(t, `{"amount": 12}`, string(pending.Args))
	quote := nodesOf(s.trace(run), signals.KindCall)[0]
	res, err := s.edit(id, signals.EditRequest{NodeID: quote.ID, Output: json.RawMessage(`{"amount": 7}`), Audit: signals.Audit{By: "ops"}})
	require.NoError(t, err)
	require.Equal(t, 1, res.Generation)
	require.Equal(t, []string{pending.CallID}, res.Invalidated)

	next := s.latest(id)
	again := s.pendingApproval(next)
	require.JSONEq(t, `{"amount": 7}`, string(again.Args), "the payment reads the edited quote")
	require.NoError(t, s.update(next, signals.Approve, signals.ApproveRequest{CallID: again.CallID, Decision: signals.DecisionApprove}))
	out, err := s.result(next)
	require.NoError(t, err)
	require.JSONEq(t, `{"amount": 7}`, string(out.Output))
	require.Len(t, tools.requests("/quote"), 1, "the quote is not fetched again")
	require.Len(t, tools.requests("/pay"), 1, "one payment, with the edited amount")
	recordAndReplay(t, next, "graph_edit_tool_output")
}
