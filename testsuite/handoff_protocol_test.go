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

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// The handoff protocol on the real server: capacity read from visibility,
// the ladder's handoff rung, a worker killed mid-handoff, the handoff
// tool's bad arguments, and a graph run handed over by a person.

// runningOf counts an agent's running runs as ReadRegistry does (-1 when
// visibility does not answer).
func runningOf(agent string) int {
	resp, err := serverClient.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{
		Query: fmt.Sprintf("%s = '%s' AND ExecutionStatus = 'Running'", signals.AttrAgentName, agent),
	})
	if err != nil {
		return -1
	}
	return int(resp.GetCount())
}

// occupy starts a run of agent that waits for an approval, so it stays
// running, and waits until visibility counts it: the agent is then at
// max_concurrent 1. The run is ended with the test.
func occupy(t *testing.T, s *stack, agent, task string) {
	t.Helper()
	run := s.start(workflows.AgentInput{Agent: agent, Task: task})
	t.Cleanup(func() { _ = serverClient.TerminateWorkflow(context.Background(), run.GetID(), "", "test over") })
	awaitPhase(t, s, run, signals.PhaseAwaitingApproval)
	require.Eventually(t, func() bool { return runningOf(agent) == 1 }, 20*time.Second, 100*time.Millisecond,
		"visibility counts the run of %s waiting for approval", agent)
}

// handoffUpdate sends the handoff update and answers its result.
func handoffUpdate(t *testing.T, run client.WorkflowRun, req signals.HandoffRequest) (signals.HandoffResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := serverClient.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: run.GetID(), UpdateName: signals.Handoff, Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return signals.HandoffResult{}, err
	}
	var res signals.HandoffResult
	return res, h.Get(ctx, &res)
}

// pinned is run's first run: a client.WorkflowRun's Get follows
// continue-as-new and moves its run id along.
func pinned(run client.WorkflowRun) client.WorkflowRun {
	return serverClient.GetWorkflow(context.Background(), run.GetID(), run.GetRunID())
}

func finalOutput(v any) scriptedmodel.Turn { return scriptedmodel.CallTurn("final_output", v) }

// hops lists a trace's handoff nodes as "from->to status".
func hops(tr signals.Trace) []string {
	var out []string
	for _, h := range nodesOf(tr, signals.KindHandoff) {
		out = append(out, fmt.Sprintf("%s->%s %s", h.From, h.To, h.Status))
	}
	return out
}

const capacityConfig = `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: issue_refund, builtin: noop, effect: write, approval: always, parameters: { type: object } }
agents:
  - name: orders
    description: Looks up orders.
    capabilities: [orders]
    instructions: You handle orders.
    model: { name: cap-orders }
    handoffs: [refunds, returns]
  - name: refunds
    description: Processes refunds.
    capabilities: [refunds]
    tier: 2
    max_concurrent: 1
    instructions: You handle refunds.
    model: { name: cap-refunds }
    tools: [issue_refund]
  - name: returns
    description: Takes back returned goods, and refunds them.
    capabilities: [returns, refunds]
    tier: 1
    instructions: You handle returns.
    model: { name: cap-returns }
`

// refunds (tier 2, the first choice) is at max_concurrent 1 with a run
// waiting for approval: a handoff from orders refuses it "over capacity"
// and returns, the next candidate, takes the run.
func TestHandoffRefusesAnAgentOverCapacity(t *testing.T) {
	// Alone: it fills agent refunds to its max_concurrent, and the server counts that agent's runs across every test.
	s := newStack(t, capacityConfig, map[string]scriptedmodel.Script{
		"cap-refunds": scriptedmodel.Sequence(scriptedmodel.CallTurn("issue_refund", map[string]any{"order": "77"})),
		"cap-orders":  scriptedmodel.Sequence(handoffCall("", "out_of_scope", "Order 1234 arrived broken; the customer wants a refund.", "refund order 1234")),
		"cap-returns": scriptedmodel.Sequence(finalOutput(map[string]string{"refunded": "1234"})),
	})
	occupy(t, s, "refunds", "refund order 77")

	run := latestRun{s.start(workflows.AgentInput{Agent: "orders", Task: "My order 1234 arrived broken."})}
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "returns", res.Agent)
	require.Equal(t, []string{"orders", "returns"}, res.HandoffPath)
	require.JSONEq(t, `{"refunded": "1234"}`, string(res.Output))

	tr := s.trace(run)
	require.Equal(t, []string{"orders->returns completed"}, hops(tr))
	h := nodesOf(tr, signals.KindHandoff)[0]
	require.True(t, refusedFor(h.Refused, "refunds", "over capacity: 1 of 1 runs"), "refused: %+v", h.Refused)
	require.True(t, refusedFor(h.Refused, "orders", "the agent handing over"), "refused: %+v", h.Refused)
	require.Len(t, h.Refused, 2, "returns is not refused: %+v", h.Refused)
}

// ladderConfig: looper repeats a call that always fails; its ladder hands
// the run over, then stops. fixer (max_concurrent 1) matches the rung's
// tool_failure; its task "hold" keeps it waiting for an approval.
func ladderConfig(tools string) string {
	return `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: book, http: { url: "` + tools + `/book" }, parameters: { type: object } }
  - { name: hold, builtin: noop, approval: always, parameters: { type: object } }
agents:
  - name: looper
    instructions: Book.
    model: { name: looper }
    tools: [book]
    handoffs: [fixer]
    policies: { max_steps: 20, loop: { window: 16, repeats: 3 }, escalation: [handoff, stop] }
  - name: fixer
    description: Finishes tasks another way when a tool keeps failing.
    capabilities: [tool_failure]
    max_concurrent: 1
    instructions: You fix.
    model: { name: fixer }
    tools: [hold]
`
}

func ladderStack(t *testing.T) (*stack, *toolServer) {
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 409, map[string]string{"error": "seat already taken"})
	})
	s := newStack(t, ladderConfig(tools.URL), map[string]scriptedmodel.Script{
		"looper": func(openai.ChatCompletionRequest) scriptedmodel.Turn {
			return scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"})
		},
		"fixer": func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
			if scriptedmodel.Task(req) == "hold" {
				return scriptedmodel.CallTurn("hold", map[string]any{})
			}
			return finalOutput(map[string]string{"booked": "14C"})
		},
	})
	return s, tools
}

// The ladder's handoff rung: the loop is escalated with rung handoff, the
// run goes from looper to fixer (reason tool_failure), and fixer finishes.
func TestLadderHandoffRungHandsALoopOver(t *testing.T) {
	t.Parallel()
	s, tools := ladderStack(t)
	first := s.start(workflows.AgentInput{Agent: "looper", Task: "book 12A"})
	looperRun := pinned(first) // Get follows the chain, and moves first along
	run := latestRun{first}
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "fixer", res.Agent)
	require.JSONEq(t, `{"booked": "14C"}`, string(res.Output))
	require.Equal(t, []string{"looper", "fixer"}, res.HandoffPath)
	require.Len(t, res.Escalations, 1)
	require.Equal(t, "handoff", res.Escalations[0].Action)
	require.Len(t, tools.requests("/book"), 3, "the third repetition is the loop")

	tr := s.trace(run)
	esc := nodesOf(tr, signals.KindEscalation)
	require.Len(t, esc, 1)
	require.Contains(t, string(esc[0].Args), `"rung":"handoff"`)
	require.Equal(t, []string{"looper->fixer completed"}, hops(tr))
	h := nodesOf(tr, signals.KindHandoff)[0]
	require.Equal(t, "tool_failure", h.Reason)
	require.Equal(t, []string{esc[0].ID}, h.Parents, "the rung asked for the handoff")
	req, ok := firstRequestOf(s.model.Requests(), "fixer")
	require.True(t, ok)
	require.Contains(t, req.Messages[len(req.Messages)-1].Content, "handed over to you by agent looper (reason: tool_failure)")

	recordAndReplay(t, looperRun, "handoff_ladder_rung") // the loop, the rung and the handoff
	recordAndReplay(t, run, "handoff_ladder_rung_fixer")
}

// With fixer at its max_concurrent, the rung finds no taker: the handoff
// node fails, and the ladder climbs on to stop.
func TestLadderHandoffRungWithNoTakerClimbsToStop(t *testing.T) {
	// Alone: it fills agent fixer to its max_concurrent, and the server counts that agent's runs across every test.
	s, _ := ladderStack(t)
	occupy(t, s, "fixer", "hold")
	run := s.start(workflows.AgentInput{Agent: "looper", Task: "book 12A"})
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Equal(t, "looper", rep.Agent)
	require.Empty(t, rep.HandoffPath, "the run never changed hands")
	require.Equal(t, []string{"handoff", "stop"}, []string{rep.Escalations[0].Action, rep.Escalations[1].Action})

	tr := s.trace(run)
	require.Equal(t, []string{"looper-> failed"}, hops(tr))
	h := nodesOf(tr, signals.KindHandoff)[0]
	require.Contains(t, h.Error, "no agent can take the run")
	require.True(t, refusedFor(h.Refused, "fixer", "over capacity: 1 of 1 runs"), "refused: %+v", h.Refused)
	esc := nodesOf(tr, signals.KindEscalation)
	require.Len(t, esc, 2)
	require.Contains(t, string(esc[0].Output), "no agent can take the run")
	require.Contains(t, string(esc[1].Args), `"rung":"stop"`)
}

// When the only agent the looping agent may hand over to is already in
// the handoff path (it handed the run over), the handoff rung has no
// target: the ladder passes it by (no handoff node, no bounce back) and
// stops.
func TestLadderHandoffRungPassedByWhenTheOnlyTargetIsInThePath(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 409, map[string]string{"error": "seat already taken"})
	})
	cfg := strings.Replace(ladderConfig(tools.URL), "  - name: fixer", `  - name: intake
    description: Takes requests in.
    instructions: Route.
    model: { name: intake }
    handoffs: [looper]
  - name: fixer`, 1)
	cfg = strings.Replace(cfg, "handoffs: [fixer]", "handoffs: [intake]", 1)
	s := newStack(t, cfg, map[string]scriptedmodel.Script{
		"intake": scriptedmodel.Sequence(handoffCall("looper", "out_of_scope", "book seat 12A", "book it")),
		"looper": func(openai.ChatCompletionRequest) scriptedmodel.Turn {
			return scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"})
		},
	})
	run := latestRun{s.start(workflows.AgentInput{Agent: "intake", Task: "book 12A"})}
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Equal(t, "looper", rep.Agent)
	require.Equal(t, []string{"intake", "looper"}, rep.HandoffPath)
	require.Len(t, rep.Escalations, 1)
	require.Equal(t, "stop", rep.Escalations[0].Action)
	require.Equal(t, []string{"intake->looper completed"}, hops(s.trace(run)), "no handoff back to intake")
}

// chargeServer is a write tool counting its requests by Idempotency-Key.
func chargeServer(t *testing.T) *toolServer {
	return newToolServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(w, 200, map[string]any{"charged": 80, "receipt": n})
	})
}

// SIGKILL the worker process while the run is mid-handoff (continued as
// closer, whose first model request has not answered): a new worker
// finishes the run once, with one completed handoff, and the clerk's
// charge before the handoff ran once.
func TestWorkerKilledMidHandoffCompletesOnce(t *testing.T) {
	t.Parallel()
	charges := chargeServer(t)
	arrived := make(chan struct{}, 8)
	model, err := scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{
		"clerk": scriptedmodel.Sequence(
			scriptedmodel.CallTurn("charge", map[string]any{"account": "A-9", "amount": 80}),
			handoffCall("closer", "out_of_scope", "Account A-9 was charged 80; it must now be closed.", "close account A-9"),
		),
		"closer": func(openai.ChatCompletionRequest) scriptedmodel.Turn {
			select {
			case arrived <- struct{}{}:
			default:
			}
			// Slow enough to kill the worker before it answers.
			turn := finalOutput(map[string]string{"closed": "A-9"})
			turn.Delay = time.Second
			return turn
		},
	}, "", scriptedmodel.WithLogf(t.Logf))
	require.NoError(t, err)
	defer model.Close()

	cfg := `
model: { base_url: "` + model.URL() + `", name: unused }
tools:
  - { name: charge, effect: write, http: { url: "` + charges.URL + `/charge" }, parameters: { type: object } }
agents:
  - { name: clerk, instructions: Charge then hand over., model: { name: clerk }, tools: [charge], handoffs: [closer] }
  - { name: closer, description: Closes accounts., instructions: Close., model: { name: closer, timeout: 2s, retry: { initial_interval: 200ms } } }
`
	workers := newWorkerProcesses(t, cfg, "handoff-crash")
	worker := workers.start()
	first := workers.run(workflows.AgentInput{Agent: "clerk", Task: "charge and close account A-9"})
	clerkRun := pinned(first)

	select {
	case <-arrived:
	case <-time.After(60 * time.Second):
		t.Fatal("closer never asked its model")
	}
	require.NoError(t, worker.Process.Kill()) // SIGKILL, mid-handoff
	_ = worker.Wait()
	desc, err := serverClient.DescribeWorkflowExecution(context.Background(), first.GetID(), first.GetRunID())
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, desc.GetWorkflowExecutionInfo().GetStatus(),
		"the clerk's run was handed over before the kill")
	workers.start()

	run := latestRun{first}
	s := &stack{t: t, client: serverClient}
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "closer", res.Agent)
	require.JSONEq(t, `{"closed": "A-9"}`, string(res.Output))
	require.Equal(t, []string{"clerk", "closer"}, res.HandoffPath)

	tr := s.trace(run)
	require.Equal(t, []string{"clerk->closer completed"}, hops(tr))
	seen := charges.requests("/charge")
	require.Len(t, seen, 1, "the charge before the handoff ran once")
	require.NotEmpty(t, seen[0].IdempotencyKey)
	closerAsked := 0
	for _, r := range model.Requests() {
		if r.Model == "closer" {
			closerAsked++
		}
	}
	require.GreaterOrEqual(t, closerAsked, 2, "closer's first request was asked again after the kill")

	// The workflow id has two runs: the clerk's, continued as new, and the
	// closer's, completed once.
	// Visibility catches up with the closer's completion in a moment.
	var statuses []string
	require.Eventually(t, func() bool {
		list, err := serverClient.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Query: "WorkflowId = '" + first.GetID() + "'"})
		if err != nil {
			return false
		}
		statuses = statuses[:0]
		for _, e := range list.GetExecutions() {
			statuses = append(statuses, e.GetStatus().String())
		}
		slices.Sort(statuses)
		return slices.Equal([]string{"Completed", "ContinuedAsNew"}, statuses)
	}, 20*time.Second, 100*time.Millisecond, "the workflow id's runs: %v", statuses)
	recordAndReplay(t, clerkRun, "handoff_worker_crash_clerk") // the write, the handoff tool
	recordAndReplay(t, run, "handoff_worker_crash_closer")     // the request asked again after the kill
}

const handoffToolConfig = `
model: { base_url: "{{MODEL}}", name: unused }
agents:
  - { name: desk, instructions: Help., model: { name: desk }, handoffs: [helper] }
  - { name: helper, description: Helps with what the desk cannot., instructions: Help more., model: { name: helper } }
`

// badHandoffs are handoff calls the run refuses, with what the model is
// told of each.
var badHandoffs = []struct {
	args map[string]string
	why  string
}{
	{map[string]string{"reason": "bored", "summary": "s", "suggested_next_action": "n"}, `reason \"bored\" is not one of`},
	{map[string]string{"reason": "other", "suggested_next_action": "n"}, `\"summary\" is empty`},
	{map[string]string{"to": "ghost", "reason": "other", "summary": "s", "suggested_next_action": "n"}, `unknown agent \"ghost\"`},
	{map[string]string{"to": "desk", "reason": "other", "summary": "s", "suggested_next_action": "n"}, `\"desk\" is the agent the run is with`},
}

// A bad handoff call goes back to the model as {call, error} and the run
// goes on; of two handoff calls in one reply, the second is answered "one
// handoff per reply" and the first is carried out.
func TestHandoffToolBadArgumentsGoBackToTheModel(t *testing.T) {
	t.Parallel()
	var turns []scriptedmodel.Turn
	for _, b := range badHandoffs {
		turns = append(turns, scriptedmodel.CallTurn("handoff", b.args))
	}
	turns = append(turns, scriptedmodel.CallsTurn(
		scriptedmodel.NewCall("handoff", map[string]string{"to": "helper", "reason": "knowledge_gap", "summary": "first", "suggested_next_action": "answer"}),
		scriptedmodel.NewCall("handoff", map[string]string{"to": "helper", "reason": "other", "summary": "second", "suggested_next_action": "answer"}),
	))
	s := newStack(t, handoffToolConfig, map[string]scriptedmodel.Script{
		"desk":   scriptedmodel.Sequence(turns...),
		"helper": scriptedmodel.Sequence(finalOutput(map[string]bool{"helped": true})),
	})
	run := latestRun{s.start(workflows.AgentInput{Agent: "desk", Task: "help me"})}
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, []string{"desk", "helper"}, res.HandoffPath)

	var desk []openai.ChatCompletionRequest
	for _, r := range s.model.Requests() {
		if r.Model == "desk" {
			desk = append(desk, r)
		}
	}
	require.Len(t, desk, len(badHandoffs)+1)
	for i, b := range badHandoffs {
		results := scriptedmodel.LastToolResults(desk[i+1])
		require.Len(t, results, 1)
		var env struct {
			Call  map[string]any `json:"call"`
			Error string         `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(results[0].Content), &env), results[0].Content)
		require.Equal(t, "handoff", env.Call["tool"], results[0].Content)
		require.Contains(t, results[0].Content, b.why)
	}

	tr := s.trace(run)
	require.Equal(t, []string{"desk->helper completed"}, hops(tr))
	var calls []signals.Node
	for _, c := range nodesOf(tr, signals.KindCall) {
		if c.Tool == "handoff" {
			calls = append(calls, c)
		}
	}
	require.Len(t, calls, len(badHandoffs)+2)
	require.Contains(t, calls[len(calls)-1].Error, "one handoff per reply")
	var hc workflows.HandoffContext
	require.NoError(t, json.Unmarshal(nodesOf(tr, signals.KindHandoff)[0].Output, &hc))
	require.Equal(t, "knowledge_gap", hc.Reason, "the first handoff of the reply is the one carried out")
}

// A reply with final_output and a handoff completes the run; the handoff
// is not carried out.
func TestFinalOutputWinsOverAHandoffInTheSameReply(t *testing.T) {
	t.Parallel()
	s := newStack(t, handoffToolConfig, map[string]scriptedmodel.Script{
		"desk": scriptedmodel.Sequence(scriptedmodel.CallsTurn(
			scriptedmodel.NewCall("final_output", map[string]bool{"answered": true}),
			scriptedmodel.NewCall("handoff", map[string]string{"reason": "other", "summary": "s", "suggested_next_action": "n"}),
		)),
		"helper": scriptedmodel.Sequence(finalOutput(map[string]bool{"helped": true})),
	})
	run := s.start(workflows.AgentInput{Agent: "desk", Task: "help me"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "desk", res.Agent)
	require.JSONEq(t, `{"answered": true}`, string(res.Output))
	require.Empty(t, res.HandoffPath)
	tr := s.trace(run)
	require.Empty(t, hops(tr))
	for _, c := range nodesOf(tr, signals.KindCall) {
		if c.Tool == "handoff" {
			require.Contains(t, c.Error, "not carried out")
		}
	}
	_, asked := firstRequestOf(s.model.Requests(), "helper")
	require.False(t, asked, "helper never got the run")
}

const graphHandoffConfig = `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: slow, builtin: sleep, parameters: { type: object } }
agents:
  - name: approver
    instructions: Ask a person.
    tools: [slow]
    handoffs: [finisher]
    graph:
      start: A
      nodes:
        A: { tool: slow, args: { ms: 10 } }
        H: { human: true }
        E: { end: true, output: "†state.human" }
      edges:
        - { from: A, to: H }
        - { from: H, to: E, when: "ok" }
  - name: finisher
    description: Finishes what waits for a person.
    instructions: Finish.
    model: { name: finisher }
`

// A graph run waiting at a human node is handed by a person to a
// free-form agent, which completes it.
func TestGraphRunWaitingForAPersonIsHandedOver(t *testing.T) {
	t.Parallel()
	s := newStack(t, graphHandoffConfig, map[string]scriptedmodel.Script{
		"finisher": scriptedmodel.Sequence(finalOutput(map[string]bool{"approved": true})),
	})
	run := latestRun{s.start(workflows.AgentInput{Agent: "approver", Task: "get approval"})}
	awaitPhase(t, s, run, signals.PhaseAwaitingHuman)

	ans, err := handoffUpdate(t, run, signals.HandoffRequest{To: "finisher", Note: "the approver is away", Audit: signals.Audit{By: "carol"}})
	require.NoError(t, err)
	require.Equal(t, "finisher", ans.To)
	require.Equal(t, []string{"approver", "finisher"}, ans.HandoffPath)

	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "finisher", res.Agent)
	require.JSONEq(t, `{"approved": true}`, string(res.Output))
	require.Equal(t, []string{"approver", "finisher"}, res.HandoffPath)

	tr := s.trace(run)
	require.Equal(t, []string{"approver->finisher completed"}, hops(tr))
	h := nodesOf(tr, signals.KindHandoff)[0]
	require.Equal(t, ans.NodeID, h.ID)
	require.Equal(t, "carol", h.By)
	humans := nodesOf(tr, signals.KindHuman)
	require.Len(t, humans, 1)
	require.Equal(t, signals.StatusSkipped, humans[0].Status, "the wait for a person ended with the handoff")
	req, ok := firstRequestOf(s.model.Requests(), "finisher")
	require.True(t, ok)
	brief := req.Messages[len(req.Messages)-1].Content
	require.Contains(t, brief, "handed over to you by agent approver")
	require.Contains(t, brief, "the approver is away")
	require.Contains(t, req.Messages[0].Content, "Finish.", "finisher's own instructions")
}
