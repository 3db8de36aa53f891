package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Every kind of wait for a person, in both run shapes, survives a flood
// of signals: served by the worker binary on the real server, the run
// continues as new while it waits (the harness has Temporal suggest it
// after suggestContinueAsNewEvents events), the next generation waits for
// the same thing, and the person's answer completes the run with each
// write run exactly once.

// waitCell is one kind of wait in one run shape.
type waitCell struct {
	shape, wait string
	agent       string // in waitsConfig
	script      scriptedmodel.Script
	phase       signals.Phase
	// answer answers the wait on the latest run; waited is the node the
	// run waited at before the flood.
	answer func(s *stack, latest client.WorkflowRun, waited string)
	books  int  // writes the run makes once answered
	record bool // its histories are recorded (make histories)
}

// waitsConfig has one agent per cell; {{TOOLS}} is the tool server.
const waitsConfig = `
model: { base_url: "{{MODEL}}", name: waits }
tools:
  - name: book
    http: { url: "{{TOOLS}}/book" }
    effect: write
    approval: always
    parameters: { type: object, required: [seat], properties: { seat: { type: string } } }
  - name: note
    http: { url: "{{TOOLS}}/note" }
    parameters: { type: object }
  - name: busy
    http: { url: "{{TOOLS}}/busy" }
    parameters: { type: object }
agents:
  - { name: free-approval, instructions: Book., tools: [book] }
  - { name: free-streamed-approval, instructions: Book., tools: [book], stream_calls: true }
  - name: graph-tool-approval
    instructions: Book.
    tools: [book]
    graph:
      start: T
      nodes: { T: { tool: book, args: { seat: "12A" }, output_path: "†state.booking" }, E: { end: true } }
      edges: [ { from: T, to: E } ]
  - name: graph-llm-approval
    instructions: Book.
    tools: [book]
    graph: { start: L, nodes: { L: { llm: true }, E: { end: true } }, edges: [ { from: L, to: E } ] }
  - { name: free-person, kind: human, policies: { human_timeout: 1h } }
  - name: graph-human
    policies: { human_timeout: 1h }
    graph: { start: H, nodes: { H: { human: true }, E: { end: true, output: "†state.human" } }, edges: [ { from: H, to: E } ] }
  - name: free-budget
    instructions: Note, then finish.
    tools: [note]
    policies: { escalation: [human, stop], human_timeout: 1h, budget: { model_requests: 1 } }
  - name: graph-budget
    instructions: Think twice.
    policies: { escalation: [human, stop], human_timeout: 1h, budget: { model_requests: 1 } }
    graph:
      start: L
      nodes: { L: { llm: true }, M: { llm: true }, E: { end: true } }
      edges: [ { from: L, to: M }, { from: M, to: E } ]
  - name: free-rung
    instructions: Ask until it is free.
    tools: [busy]
    policies: { loop: { window: 16, repeats: 3 }, escalation: [human, stop], human_timeout: 1h }
  - name: graph-rung
    tools: [busy]
    policies: { loop: { window: 16, repeats: 3 }, escalation: [human, stop], human_timeout: 1h }
    graph:
      start: T
      nodes: { T: { tool: busy, output_path: "†state.busy" }, E: { end: true } }
      edges: [ { from: T, to: E, when: "ok" }, { from: T, to: T } ]
`

func approveWaited(s *stack, latest client.WorkflowRun, waited string) {
	require.NoError(s.t, s.updateStarted(latest, signals.Approve, signals.ApproveRequest{CallID: waited, Decision: "approve", Audit: signals.Audit{By: "alice"}}, nil))
}

func replyToWaited(s *stack, latest client.WorkflowRun, waited string) {
	var res signals.ReplyResult
	require.NoError(s.t, s.updateStarted(latest, signals.Reply, signals.ReplyRequest{Text: "yes", Output: []byte(`{"ok":true}`)}, &res))
	require.Equal(s.t, waited, res.NodeID, "the reply lands at the node the run waited at before the flood")
}

func raiseWaited(s *stack, latest client.WorkflowRun, _ string) {
	require.NoError(s.t, s.updateStarted(latest, signals.Budget, signals.BudgetRequest{Raise: &signals.BudgetRaise{ModelRequests: 1}}, nil))
}

func waitCells() []waitCell {
	seat := map[string]any{"seat": "12A"}
	return []waitCell{
		{shape: freeForm, wait: "approval", agent: "free-approval", phase: signals.PhaseAwaitingApproval, answer: approveWaited, books: 1,
			script: scriptedmodel.Sequence(scriptedmodel.CallTurn("book", seat), scriptedmodel.CallTurn("final_output", map[string]any{"ok": true}))},
		{shape: freeForm, wait: "approval (streamed calls)", agent: "free-streamed-approval", phase: signals.PhaseAwaitingApproval, answer: approveWaited, books: 1, record: true,
			script: scriptedmodel.Sequence(scriptedmodel.CallTurn("book", seat), scriptedmodel.CallTurn("final_output", map[string]any{"ok": true}))},
		{shape: graph, wait: "approval (tool node)", agent: "graph-tool-approval", phase: signals.PhaseAwaitingApproval, answer: approveWaited, books: 1, record: true},
		{shape: graph, wait: "approval (llm node)", agent: "graph-llm-approval", phase: signals.PhaseAwaitingApproval, answer: approveWaited, books: 1, record: true,
			script: scriptedmodel.Sequence(scriptedmodel.CallTurn("book", seat))},
		{shape: freeForm, wait: "human reply (person agent)", agent: "free-person", phase: signals.PhaseAwaitingHuman, answer: replyToWaited},
		{shape: graph, wait: "human reply (human node)", agent: "graph-human", phase: signals.PhaseAwaitingHuman, answer: replyToWaited, record: true},
		{shape: freeForm, wait: "budget rung", agent: "free-budget", phase: signals.PhaseAwaitingHuman, answer: raiseWaited,
			script: scriptedmodel.Sequence(scriptedmodel.CallTurn("note", map[string]any{"n": 1}), scriptedmodel.CallTurn("final_output", map[string]any{"ok": true}))},
		{shape: graph, wait: "budget rung", agent: "graph-budget", phase: signals.PhaseAwaitingHuman, answer: raiseWaited, record: true,
			script: scriptedmodel.Sequence(scriptedmodel.Reply("first"), scriptedmodel.Reply("second"))},
		{shape: freeForm, wait: "ladder human rung", agent: "free-rung", phase: signals.PhaseAwaitingHuman, answer: replyToWaited, record: true, script: askUntilAPersonReplies},
		{shape: graph, wait: "ladder human rung", agent: "graph-rung", phase: signals.PhaseAwaitingHuman, answer: replyToWaited, record: true},
	}
}

// askUntilAPersonReplies calls busy until a person's reply is in the
// conversation, then finishes.
func askUntilAPersonReplies(req openai.ChatCompletionRequest) scriptedmodel.Turn {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleUser && strings.HasPrefix(m.Content, "A person replied: ") {
			return scriptedmodel.CallTurn("final_output", map[string]any{"ok": true})
		}
	}
	return scriptedmodel.CallTurn("busy", map[string]any{"q": 1})
}

// newWaitsToolServer books any seat; busy fails (409) its first three
// calls, then answers.
func newWaitsToolServer(t *testing.T) *toolServer {
	return newToolServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/busy" && n <= 3 {
			writeJSON(w, 409, map[string]any{"error": "busy"})
			return
		}
		var a map[string]any
		_ = json.NewDecoder(r.Body).Decode(&a)
		writeJSON(w, 200, map[string]any{"booked": a})
	})
}

func TestEveryWaitContinuesAsNewUnderASignalFloodInBothShapes(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, c := range waitCells() {
		kind, variant, _ := strings.Cut(strings.TrimSuffix(c.wait, ")"), " (")
		cells = append(cells, parityCell{capability: "signal flood at: " + kind, shape: c.shape, variant: variant, run: func(t *testing.T) { runWaitCell(t, c) }})
	}
	runParity(t, cells)
}

// runWaitCell starts the cell's agent, floods it while it waits, checks
// the next generation waits for the same thing, and answers it.
func runWaitCell(t *testing.T, c waitCell) {
	tools := newWaitsToolServer(t)
	cfg := strings.ReplaceAll(waitsConfig, "{{TOOLS}}", tools.URL)
	scripts := map[string]scriptedmodel.Script{}
	if c.script != nil {
		scripts["waits"] = c.script
	}
	s := newBinaryStack(t, cfg, scripts)
	run := s.start(workflows.AgentInput{Agent: c.agent, Task: "wait for a person"})
	s.awaitPhase(run, c.phase)
	waited := waitedAt(t, s, run, c.phase)

	// The flood: approvals of calls the run does not have, each with a
	// reason (a reply would answer a human node).
	ctx := context.Background()
	reason := strings.Repeat("x", 512)
	for i := range 120 {
		require.NoError(t, s.client.SignalWorkflow(ctx, run.GetID(), "", signals.Approve,
			map[string]any{"call_id": fmt.Sprint("n999", i), "decision": "approve", "reason": reason}))
	}
	latest := s.client.GetWorkflow(ctx, run.GetID(), "")
	require.Eventually(t, func() bool {
		var st signals.Status
		v, err := s.client.QueryWorkflow(ctx, run.GetID(), "", signals.QueryStatus)
		return err == nil && v.Get(&st) == nil && st.Generation >= 1 && st.Phase == c.phase
	}, 30*time.Second, 100*time.Millisecond, "the waiting run continued as new and waits again")
	require.Equal(t, waited, waitedAt(t, s, latest, c.phase), "the next generation waits at the same node")
	require.Empty(t, tools.requests("/book"), "nothing is written before the answer")

	c.answer(s, latest, waited)
	res, err := s.result(latest)
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	require.GreaterOrEqual(t, res.Generation, 1)
	require.Len(t, tools.requests("/book"), c.books, "each write ran exactly once")
	if c.record {
		name := strings.ReplaceAll(c.agent, "-", "_")
		recordAndReplay(t, run, name+"_waiting_gen0")
		recordAndReplay(t, latest, name+"_waiting_last")
	}
}

// waitedAt is the node a run waits at: the call waiting for approval, or
// the pending human or budget node.
func waitedAt(t *testing.T, s *stack, run client.WorkflowRun, phase signals.Phase) string {
	t.Helper()
	if phase == signals.PhaseAwaitingApproval {
		return s.pendingApproval(run).CallID
	}
	var pending []string
	require.Eventually(t, func() bool {
		pending = nil
		for _, n := range s.trace(run).Nodes {
			if (n.Kind == signals.KindHuman || n.Kind == signals.KindBudget) && n.Status == signals.StatusPending {
				pending = append(pending, n.ID)
			}
		}
		return len(pending) == 1
	}, 20*time.Second, 100*time.Millisecond, "one node waits")
	return pending[0]
}
