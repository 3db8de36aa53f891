package testsuite

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Handoffs, a person's reply, budgets and the model, in both run shapes.
// Each cell is served by the worker binary on the real server, with a
// scripted model and HTTP tools on loopback of its own.

// modelParityHead has the tools, and the agents whose graph twin is not
// an llm loop: the graph hands over from a tool node or waits at a human
// node. {{TOOLS}} is the tool server.
const modelParityHead = `
model: { base_url: "{{MODEL}}", name: parity }
tools:
  - { name: book, http: { url: "{{TOOLS}}/book" }, parameters: { type: object } }
  - { name: busy, http: { url: "{{TOOLS}}/busy" }, parameters: { type: object } }
  - { name: hold, http: { url: "{{TOOLS}}/hold" }, effect: write, approval: always, parameters: { type: object } }
  - { name: lookup, http: { url: "{{TOOLS}}/lookup" }, parameters: { type: object } }
agents:
  - name: free-form-looper
    instructions: Book seat 12A.
    tools: [book]
    handoffs: [parity-fixer]
    policies: { loop: { window: 16, repeats: 3 }, escalation: [handoff, stop] }
  - name: graph-looper
    instructions: Book seat 12A.
    tools: [book]
    handoffs: [parity-fixer]
    policies: { loop: { window: 16, repeats: 3 }, escalation: [handoff, stop] }
    graph:
      start: B
      nodes: { B: { tool: book, args: { seat: "12A" }, output_path: "†state.booking" }, E: { end: true } }
      edges: [ { from: B, to: E, when: "ok" }, { from: B, to: B } ]
  - name: parity-fixer
    description: Finishes tasks another way when a tool keeps failing.
    capabilities: [tool_failure]
    instructions: You fix.
    model: { name: fixer }
  - { name: free-form-holder, instructions: Hold seat 12A., tools: [hold], handoffs: [parity-finisher] }
  - name: graph-holder
    handoffs: [parity-finisher]
    policies: { human_timeout: 1h }
    graph: { start: H, nodes: { H: { human: true }, E: { end: true, output: "†state.human" } }, edges: [ { from: H, to: E } ] }
  - { name: parity-finisher, description: Finishes what waits for a person., instructions: Finish., model: { name: finisher } }
  - name: free-form-asker
    instructions: Ask until it is free.
    tools: [busy]
    policies: { loop: { window: 16, repeats: 3 }, escalation: [human, stop], human_timeout: 1h }
  - name: graph-asker
    instructions: Do as the person says.
    policies: { human_timeout: 1h }
    graph: { start: H, nodes: { H: { human: true }, L: { llm: true }, E: { end: true } }, edges: [ { from: H, to: L }, { from: L, to: E } ] }
`

// llmLoop is the graph of an llm agent's twin: its llm node is asked
// again until the model's final_output ends the run, as a free-form run's
// steps are.
const llmLoop = `graph: { start: L, nodes: { L: { llm: true }, E: { end: true } }, edges: [ { from: L, to: E, when: "state.done == true" }, { from: L, to: L } ] }`

// twins are the agents <shape>-name of both shapes, each with spec (a
// flow mapping's entries), the graph one walking llmLoop.
func twins(name, spec string) string {
	return fmt.Sprintf("  - { name: %s-%s, %s }\n  - { name: %s-%s, %s, %s }\n", freeForm, name, spec, graph, name, spec, llmLoop)
}

// modelParityConfig: a budget of two tool calls that stops, the same
// that a person may raise, a model with an 8k window, and one that falls
// back to backup after two attempts.
var modelParityConfig = modelParityHead +
	twins("budget-stop", "instructions: Look things up., tools: [lookup], policies: { escalation: [stop], budget: { tool_calls: 2 } }") +
	twins("budget-raise", "instructions: Look things up., tools: [lookup], policies: { escalation: [human, stop], human_timeout: 1h, budget: { tool_calls: 2 } }") +
	twins("compacting", "instructions: Count., tools: [lookup], model: { context_window: 8000, max_output_tokens: 1000 }, policies: { context: { keep_last: 3 } }") +
	twins("falling-back", "instructions: Count., tools: [lookup], model: { name: primary, retry: { max_attempts: 2, initial_interval: 100ms }, fallbacks: [ { name: backup } ] }")

// newModelParityToolServer: book and busy always fail (409); hold answers;
// lookup answers its "i" with about 600 tokens of data, so results
// outgrow an 8k window.
func newModelParityToolServer(t *testing.T) *toolServer {
	return newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		switch r.URL.Path {
		case "/book", "/busy":
			writeJSON(w, 409, map[string]string{"error": "taken"})
		case "/lookup":
			var args struct{ I int }
			_ = json.NewDecoder(r.Body).Decode(&args)
			writeJSON(w, 200, map[string]any{"i": args.I, "data": hexOf(args.I, 512)})
		default:
			writeJSON(w, 200, map[string]bool{"held": true})
		}
	})
}

// startModelParityRun starts the shape's agent name on a worker binary of
// its own, with the model's scripts and the model server's opts.
func startModelParityRun(t *testing.T, shape, name string, scripts map[string]scriptedmodel.Script, opts ...scriptedmodel.Option) (*stack, *toolServer, client.WorkflowRun) {
	tools := newModelParityToolServer(t)
	s := newBinaryStack(t, strings.ReplaceAll(modelParityConfig, "{{TOOLS}}", tools.URL), scripts, opts...)
	return s, tools, s.start(workflows.AgentInput{Agent: shape + "-" + name, Task: "do the task"})
}

func TestParityOfHandoffsBudgetsAndTheModel(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells,
			parityCell{capability: "handoff", shape: shape, variant: "ladder rung", run: func(t *testing.T) { handOverAtTheLadder(t, shape) }},
			parityCell{capability: "handoff", shape: shape, variant: "by a person", run: func(t *testing.T) { handOverByAPerson(t, shape) }},
			parityCell{capability: "human reply", shape: shape, run: func(t *testing.T) { takeAPersonsReply(t, shape) }},
			parityCell{capability: "budget stop", shape: shape, run: func(t *testing.T) { stopAtTheBudget(t, shape) }},
			parityCell{capability: "budget raise", shape: shape, run: func(t *testing.T) { raiseTheBudget(t, shape) }},
			parityCell{capability: "compaction in an 8k window", shape: shape, run: func(t *testing.T) { compactInAnEightKWindow(t, shape) }},
			parityCell{capability: "model fallback", shape: shape, run: func(t *testing.T) { fallBackFromADownModel(t, shape) }},
		)
	}
	runParity(t, cells)
}

// handOverAtTheLadder: booking fails the same way three times, a loop;
// the ladder's handoff rung hands the run to parity-fixer, which
// completes it.
func handOverAtTheLadder(t *testing.T, shape string) {
	s, tools, first := startModelParityRun(t, shape, "looper", map[string]scriptedmodel.Script{
		"parity": func(openaiRequest) scriptedmodel.Turn {
			return scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"})
		},
		"fixer": scriptedmodel.Sequence(finalOutput(map[string]string{"booked": "14C"})),
	})
	from := shape + "-looper"
	tr := requireHandedOver(t, s, latestRun{first}, from, "parity-fixer", `{"booked": "14C"}`)
	require.Len(t, tools.requests("/book"), 3, "the third repetition is the loop")
	esc := nodesOf(tr, signals.KindEscalation)
	require.Len(t, esc, 1)
	require.Contains(t, string(esc[0].Args), `"rung":"handoff"`)
	h := nodesOf(tr, signals.KindHandoff)[0]
	require.Equal(t, "tool_failure", h.Reason)
	require.Equal(t, []string{esc[0].ID}, h.Parents, "the rung asked for the handoff")
	requireBriefed(t, s, "fixer", "handed over to you by agent "+from+" (reason: tool_failure)")
}

// handOverByAPerson: while the run waits for a person (the free-form
// run's write for approval, the graph at its human node), a person hands
// it to parity-finisher, which completes it.
func handOverByAPerson(t *testing.T, shape string) {
	s, tools, first := startModelParityRun(t, shape, "holder", map[string]scriptedmodel.Script{
		"parity":   scriptedmodel.Sequence(scriptedmodel.CallTurn("hold", map[string]any{"seat": "12A"})),
		"finisher": scriptedmodel.Sequence(finalOutput(map[string]bool{"finished": true})),
	})
	run := latestRun{first}
	awaitPhase(t, s, run, map[string]signals.Phase{freeForm: signals.PhaseAwaitingApproval, graph: signals.PhaseAwaitingHuman}[shape])
	from := shape + "-holder"
	ans, err := handoffUpdate(t, run, signals.HandoffRequest{To: "parity-finisher", Note: "the holder is away", Audit: signals.Audit{By: "carol"}})
	require.NoError(t, err)
	require.Equal(t, []string{from, "parity-finisher"}, ans.HandoffPath)

	tr := requireHandedOver(t, s, run, from, "parity-finisher", `{"finished": true}`)
	h := nodesOf(tr, signals.KindHandoff)[0]
	require.Equal(t, ans.NodeID, h.ID)
	require.Equal(t, "carol", h.By)
	require.Empty(t, tools.requests("/hold"), "the write waiting for approval never ran")
	requireBriefed(t, s, "finisher", "handed over to you by agent "+from, "the holder is away")
}

// requireHandedOver waits for a run handed from one agent to another: to
// completed it with output, and the trace has that one handoff.
func requireHandedOver(t *testing.T, s *stack, run client.WorkflowRun, from, to, output string) signals.Trace {
	t.Helper()
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, to, res.Agent)
	require.JSONEq(t, output, string(res.Output))
	require.Equal(t, []string{from, to}, res.HandoffPath)
	tr := s.trace(run)
	require.Equal(t, []string{from + "->" + to + " completed"}, hops(tr))
	return tr
}

// requireBriefed checks the first request to model ends with the
// handoff's brief, saying each of says.
func requireBriefed(t *testing.T, s *stack, model string, says ...string) {
	t.Helper()
	req, ok := firstRequestOf(s.model.Requests(), model)
	require.True(t, ok, "%s was asked", model)
	brief := req.Messages[len(req.Messages)-1].Content
	for _, said := range says {
		require.Contains(t, brief, said)
	}
}

// personReplied is what a person replied in the conversation, if anything.
func personReplied(req openaiRequest) (string, bool) {
	for _, m := range req.Messages {
		if said, ok := strings.CutPrefix(m.Content, "A person replied: "); ok && m.Role == openai.ChatMessageRoleUser {
			return said, true
		}
	}
	return "", false
}

// doAsThePersonSays calls busy until a person's reply is in the
// conversation, then answers what they said.
func doAsThePersonSays(req openaiRequest) scriptedmodel.Turn {
	if said, ok := personReplied(req); ok {
		return finalOutput(map[string]string{"said": said})
	}
	return scriptedmodel.CallTurn("busy", map[string]any{"q": 1})
}

// takeAPersonsReply: the run waits for a person (the free-form run at
// its ladder's human rung, the graph at its human node), and the reply
// reaches the model's next request, which answers it.
func takeAPersonsReply(t *testing.T, shape string) {
	s, _, run := startModelParityRun(t, shape, "asker", map[string]scriptedmodel.Script{"parity": doAsThePersonSays})
	awaitPhase(t, s, run, signals.PhaseAwaitingHuman)
	asked := s.model.RequestCount()
	const said = "Take seat 14C instead."
	require.NoError(t, s.update(run, signals.Reply, signals.ReplyRequest{Text: said, Audit: signals.Audit{By: "alice"}}))
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"said": "`+said+`"}`, string(res.Output))

	reqs := s.model.Requests()
	require.Len(t, reqs, asked+1, "one request after the reply")
	got, ok := personReplied(reqs[asked])
	require.True(t, ok, "the request after the reply carries it")
	require.Equal(t, said, got)
	humans := nodesOf(s.trace(run), signals.KindHuman)
	require.Len(t, humans, 1)
	require.Equal(t, signals.StatusCompleted, humans[0].Status)
	require.Contains(t, string(humans[0].Output), said)
}

// onlyBudgetNode is the run's one budget node, at the limit of two tool
// calls, in status.
func onlyBudgetNode(t *testing.T, s *stack, run client.WorkflowRun, status signals.NodeStatus) signals.Node {
	t.Helper()
	b := nodesOf(s.trace(run), signals.KindBudget)
	require.Len(t, b, 1)
	require.Equal(t, status, b[0].Status)
	require.Contains(t, string(b[0].Args), `"limit":"tool_calls"`)
	return b[0]
}

// stopAtTheBudget: a model that never finishes, under a budget of two
// tool calls and no human rung, is stopped before the third.
func stopAtTheBudget(t *testing.T, shape string) {
	s, tools, run := startModelParityRun(t, shape, "budget-stop", map[string]scriptedmodel.Script{"parity": counting(0)})
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Contains(t, rep.Reason, "budget: the budget's tool_calls would be crossed: 2 spent, 1 more needed, limit 2")
	require.NotNil(t, rep.Spend)
	require.EqualValues(t, 2, rep.Spend.ToolCalls)
	require.Len(t, tools.requests("/lookup"), 2, "nothing ran past the limit")
	onlyBudgetNode(t, s, run, signals.StatusFailed)
}

// raiseTheBudget: the third of three lookups waits at the budget rung; a
// person raises tool_calls by one and the run completes.
func raiseTheBudget(t *testing.T, shape string) {
	s, tools, run := startModelParityRun(t, shape, "budget-raise", map[string]scriptedmodel.Script{"parity": counting(3)})
	awaitPhase(t, s, run, signals.PhaseAwaitingHuman)
	waiting := onlyBudgetNode(t, s, run, signals.StatusPending)
	require.Len(t, tools.requests("/lookup"), 2, "the third call waits for the budget")
	var raised signals.BudgetResult
	require.NoError(t, s.updateInto(run, signals.Budget, signals.BudgetRequest{
		Audit: signals.Audit{By: "ops", Reason: "one more"}, Raise: &signals.BudgetRaise{ToolCalls: 1}}, &raised))
	require.Equal(t, waiting.ID, raised.NodeID)

	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"looked_up": 3}`, string(res.Output))
	require.EqualValues(t, 3, res.Spend.ToolCalls)
	require.EqualValues(t, 3, res.Spend.Limits["tool_calls"])
	require.Len(t, tools.requests("/lookup"), 3)
	require.Contains(t, string(onlyBudgetNode(t, s, run, signals.StatusCompleted).Output), `"by":"ops"`)
}

// compactInAnEightKWindow: 40 results of about 600 tokens each, on a
// model that refuses a prompt over 8k tokens; the run compacts its
// conversation and completes.
func compactInAnEightKWindow(t *testing.T, shape string) {
	s, _, run := startModelParityRun(t, shape, "compacting", map[string]scriptedmodel.Script{"parity": lookupCounter(contextSteps)},
		scriptedmodel.WithContextWindow(8000))
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf(`{"turns": %d}`, contextSteps), string(res.Output))
	require.Less(t, slices.Max(s.model.PromptTokens()), 8000, "no prompt reached the window")
	tr := s.trace(run)
	compactions, refused := compactionsOf(t, tr)
	require.Positive(t, compactions, "the conversation was compacted")
	require.Zero(t, refused, "compacted before the model refused")
	require.NotEmpty(t, nodesOf(tr, signals.KindSummary), "the oldest turns were summarized")
}

// fallBackFromADownModel: the primary answers 503 to both its attempts;
// the request goes to backup, and so do the run's next ones.
func fallBackFromADownModel(t *testing.T, shape string) {
	s, _, run := startModelParityRun(t, shape, "falling-back", map[string]scriptedmodel.Script{
		"primary": func(openaiRequest) scriptedmodel.Turn {
			return scriptedmodel.Fail(503, "the primary is overloaded (scripted)")
		},
		"backup": scriptedmodel.Sequence(
			scriptedmodel.CallTurn("lookup", map[string]any{"i": 1}),
			scriptedmodel.CallTurn("lookup", map[string]any{"i": 2}),
			finalOutput(map[string]bool{"done": true}),
		),
	})
	requireFellBackToBackup(t, s, run)
}
