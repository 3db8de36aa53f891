package testsuite

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// approval: {when} on the real server, in both shapes: of two payments,
// the small one runs at once (its node notes the condition was false) and
// the large one waits until a person approves it. Each history is kept.

// payServer answers each payment with its arguments.
func payServer(t *testing.T) *toolServer {
	return newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		var a map[string]any
		_ = json.NewDecoder(r.Body).Decode(&a)
		writeJSON(w, 200, a)
	})
}

func payWhenTool(url string) string {
	return `  - { name: pay, http: { method: POST, url: "` + url + `/pay" }, effect: write, approval: { when: "args.amount > input.limit" },
      parameters: { type: object, required: [amount], properties: { amount: { type: integer } } } }
`
}

// payTwice runs payer with input: the small payment runs at once, the
// large one waits and is approved. The small payment's node says the
// condition was false, the large one's that it was true, and it alone has
// an approval. The history is kept as history.
func payTwice(t *testing.T, s *stack, tools *toolServer, input, output, history string) {
	t.Helper()
	run := s.start(workflows.AgentInput{Agent: "payer", Task: "pay twice", Input: json.RawMessage(input)})
	pending := s.pendingApproval(run)
	require.Equal(t, "pay", pending.Tool)
	require.JSONEq(t, `{"amount": 5000}`, string(pending.Args))
	require.Len(t, tools.requests("/pay"), 1, "the small payment did not wait")
	require.JSONEq(t, `{"amount": 50}`, tools.requests("/pay")[0].Body)
	require.NoError(t, s.update(run, signals.Approve, signals.ApproveRequest{CallID: pending.CallID, Decision: signals.DecisionApprove, Audit: signals.Audit{By: "ana"}}))
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, output, string(res.Output))
	require.Len(t, tools.requests("/pay"), 2)

	pays := callsOf(s.trace(run), "pay")
	require.Len(t, pays, 2)
	require.Equal(t, "approval not asked: args.amount > input.limit is false", pays[0].Note)
	require.Equal(t, "approval asked: args.amount > input.limit is true", pays[1].Note)
	require.Len(t, nodesOf(s.trace(run), signals.KindApproval), 1)
	recordAndReplay(t, run, history)
}

func TestApprovalWhenFreeFormOnTheServer(t *testing.T) {
	t.Parallel()
	tools := payServer(t)
	cfg := `
model: { base_url: "{{MODEL}}", name: small }
tools:
` + payWhenTool(tools.URL) + `agents:
  - { name: payer, instructions: Pay., tools: [pay] }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"small": scriptedmodel.Sequence(
		scriptedmodel.CallsTurn(scriptedmodel.NewCall("pay", map[string]int{"amount": 50})),
		scriptedmodel.CallsTurn(scriptedmodel.NewCall("pay", map[string]int{"amount": 5000})),
		scriptedmodel.Reply("paid"),
	)})
	payTwice(t, s, tools, `{"limit": 1000}`, `"paid"`, "approval_when_free_form")
}

func TestApprovalWhenGraphOnTheServer(t *testing.T) {
	t.Parallel()
	tools := payServer(t)
	cfg := `
model: { base_url: "{{MODEL}}", name: unused }
tools:
` + payWhenTool(tools.URL) + `agents:
  - name: payer
    instructions: Pay.
    tools: [pay]
    graph:
      start: S
      nodes:
        S: { tool: pay, args: { amount: "†input.small" }, output_path: "†state.small" }
        L: { tool: pay, args: { amount: "†input.large" }, output_path: "†state.large" }
        E: { end: true, output: "†state.large" }
      edges: [ { from: S, to: L }, { from: L, to: E } ]
`
	s := newStack(t, cfg, nil)
	payTwice(t, s, tools, `{"limit": 1000, "small": 50, "large": 5000}`, `{"amount": 5000}`, "approval_when_graph")
}
