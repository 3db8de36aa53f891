package testsuite

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// deskConfig is a help desk whose model agents wait on a person's approval
// (hold_order, issue_refund), so a person's handoff lands while the run
// waits; clerk has no handoffs; billing and greeter hand over by rule;
// supervisor and night_desk are people. {{TOOLS}} is a loopback tool
// server that always fails.
const deskConfig = `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: lookup_order, builtin: noop, parameters: { type: object } }
  - { name: hold_order, builtin: noop, effect: write, approval: always, parameters: { type: object } }
  - { name: issue_refund, builtin: noop, effect: write, approval: always, parameters: { type: object } }
  - { name: fetch_invoice, http: { method: POST, url: "{{TOOLS}}/invoice" }, retry: { max_attempts: 1 }, parameters: { type: object } }
agents:
  - name: general
    description: Answers general questions and routes the customer.
    capabilities: [general]
    instructions: You answer customers.
    model: { name: desk-general }
    handoffs: ["*"]
  - name: orders
    description: Looks up orders, shipping and delivery status.
    capabilities: [orders, shipping]
    instructions: You handle orders.
    model: { name: desk-orders }
    tools: [lookup_order, hold_order]
    handoffs: [general, refunds, human]
  - name: refunds
    description: Processes refunds and returns.
    capabilities: [refunds, returns]
    instructions: You handle refunds.
    model: { name: desk-refunds }
    tools: [issue_refund]
    handoffs: [orders]
  - { name: clerk, instructions: You file paperwork., model: { name: desk-clerk }, tools: [hold_order] }
  - name: billing
    instructions: You fetch invoices.
    model: { name: desk-billing }
    tools: [fetch_invoice]
    handoffs: [supervisor]
    policies: { handoff_when: { tool_failures: 2 }, repair: { max_attempts: 0 } }
  - name: greeter
    instructions: You greet.
    model: { name: desk-greeter }
    handoffs: [supervisor]
    policies: { handoff_when: { user_asks: "(?i)(human|person)" } }
  - name: supervisor
    description: A person who signs off refunds and takes over what agents cannot do.
    kind: human
    output_schema: { type: object, required: [resolution], properties: { resolution: { type: string } } }
  - { name: night_desk, kind: human, policies: { human_timeout: 2s } }
`

// deskScripts: each model agent's first step waits on a person's approval
// (or fails, or is never asked), its next ends the run.
func deskScripts() map[string]scriptedmodel.Script {
	return map[string]scriptedmodel.Script{
		"desk-general": scriptedmodel.Sequence(handoffCall("orders", "out_of_scope", "Order 1234 status.", "look up order 1234")),
		"desk-orders":  scriptedmodel.Sequence(scriptedmodel.CallTurn("hold_order", map[string]string{"order": "1234"}), scriptedmodel.Reply("held")),
		"desk-refunds": scriptedmodel.Sequence(scriptedmodel.CallTurn("issue_refund", map[string]any{"order": "1234", "amount": 80}), scriptedmodel.Reply("refund issued")),
		"desk-clerk":   scriptedmodel.Sequence(scriptedmodel.CallTurn("hold_order", map[string]string{"order": "77"}), scriptedmodel.Reply("filed")),
		"desk-billing": scriptedmodel.Sequence(
			scriptedmodel.CallTurn("fetch_invoice", map[string]string{"invoice": "A1"}),
			scriptedmodel.CallTurn("fetch_invoice", map[string]string{"invoice": "A2"}),
			scriptedmodel.Reply("not reached: the rule hands over first")),
		"desk-greeter": scriptedmodel.Sequence(scriptedmodel.Reply("not reached: the rule hands over first")),
	}
}

// deskStack is a stack over deskConfig, its tool server answering 500.
func deskStack(t *testing.T, scripts map[string]scriptedmodel.Script) (*stack, *toolServer) {
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		writeJSON(w, 500, map[string]string{"error": "invoice store down"})
	})
	return newStack(t, strings.ReplaceAll(deskConfig, "{{TOOLS}}", tools.URL), scripts), tools
}

// sendHandoff sends the handoff update to a workflow's latest run and
// waits for its answer.
func (s *stack) sendHandoff(id string, req signals.HandoffRequest) (signals.HandoffResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := s.client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: id, UpdateName: signals.Handoff, Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return signals.HandoffResult{}, err
	}
	var res signals.HandoffResult
	return res, h.Get(ctx, &res)
}

// signal sends a signal to a workflow's latest run.
func (s *stack) signal(id, name string, arg any) {
	s.t.Helper()
	require.NoError(s.t, s.client.SignalWorkflow(context.Background(), id, "", name, arg))
}

// awaitIgnored waits until the run has recorded n ignored signals (skipped
// human nodes) and answers their errors.
func (s *stack) awaitIgnored(run client.WorkflowRun, n int) []string {
	s.t.Helper()
	var why []string
	require.Eventually(s.t, func() bool {
		why = nil
		for _, node := range nodesOf(s.trace(run), signals.KindHuman) {
			if node.Status == signals.StatusSkipped {
				why = append(why, node.Error)
			}
		}
		return len(why) >= n
	}, 20*time.Second, 100*time.Millisecond)
	require.Len(s.t, why, n)
	return why
}

// awaitListed waits until visibility lists the workflow under a query.
func (s *stack) awaitListed(id, query string) {
	s.t.Helper()
	requireListed(s.t, "WorkflowId = '"+id+"' AND "+query, 1)
}

// requireListed waits for the server's visibility to list n runs
// matching query.
func requireListed(t *testing.T, query string, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		resp, err := serverClient.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Query: query})
		return err == nil && len(resp.Executions) == n
	}, 20*time.Second, 200*time.Millisecond, "not %d runs listed: %s", n, query)
}

// lastMessage is a request's last message (a handed-over agent's first
// request ends with the brief).
func lastMessage(req openai.ChatCompletionRequest) string {
	return req.Messages[len(req.Messages)-1].Content
}

// lastRequestOf is the last request a model got.
func lastRequestOf(reqs []openai.ChatCompletionRequest, model string) openai.ChatCompletionRequest {
	var last openai.ChatCompletionRequest
	for _, r := range reqs {
		if r.Model == model {
			last = r
		}
	}
	return last
}

// A person hands a run of orders, waiting on an approval, to refunds: the
// update answers who took it and the path, the waiting call does not run,
// the run goes on as refunds (status, visibility) and refunds' first
// request carries the person's note.
func TestPersonHandsARunToANamedAgent(t *testing.T) {
	t.Parallel()
	s, _ := deskStack(t, deskScripts())
	first := s.start(workflows.AgentInput{Agent: "orders", Task: "Order 1234 arrived broken."})
	id, firstRunID, run := first.GetID(), first.GetRunID(), latestRun{first} // Get follows the chain: keep the first run's id
	s.awaitApproval(id, 0, "hold_order")

	res, err := s.sendHandoff(id, signals.HandoffRequest{To: "refunds", Note: "customer wants a refund", Audit: signals.Audit{By: "alice"}})
	require.NoError(t, err)
	require.Equal(t, "refunds", res.To)
	require.Equal(t, []string{"orders", "refunds"}, res.HandoffPath)
	require.NotEmpty(t, res.NodeID)

	refund := s.awaitApproval(id, 1, "issue_refund")
	st := s.status(run)
	require.Equal(t, "refunds", st.Agent)
	require.Equal(t, []string{"orders", "refunds"}, st.HandoffPath)
	s.awaitListed(id, "AgentName = 'refunds' AND AgentPhase = 'awaiting_approval'")

	tr := s.trace(run)
	h := nodeOf(t, tr, res.NodeID)
	require.Equal(t, signals.KindHandoff, h.Kind)
	require.Equal(t, signals.StatusCompleted, h.Status)
	require.Equal(t, "alice", h.By)
	require.Equal(t, "orders", h.From)
	require.Equal(t, "refunds", h.To)
	held := callsOf(tr, "hold_order")
	require.Len(t, held, 1)
	require.Equal(t, signals.StatusFailed, held[0].Status, "the call waiting for approval does not run")
	require.Equal(t, "not run: a person handed the run over before it ran", held[0].Error, "nobody edited the run")

	req, ok := firstRequestOf(s.model.Requests(), "desk-refunds")
	require.True(t, ok, "refunds asked its model")
	require.Contains(t, lastMessage(req), "handed over to you by agent orders")
	require.Contains(t, lastMessage(req), "customer wants a refund")

	s.approveCall(id, refund.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "refunds", out.Agent)
	require.Equal(t, []string{"orders", "refunds"}, out.HandoffPath)
	recordAndReplay(t, s.client.GetWorkflow(context.Background(), id, firstRunID), "handoff_update_gen0")
	recordAndReplay(t, s.latest(id), "handoff_update_gen1")
}

// Without "to", the run chooses by the person's note: refunds matches it,
// general does not.
func TestPersonHandsARunOverWithANoteOnly(t *testing.T) {
	t.Parallel()
	s, _ := deskStack(t, deskScripts())
	first := s.start(workflows.AgentInput{Agent: "orders", Task: "Order 1234 arrived broken."})
	id := first.GetID()
	s.awaitApproval(id, 0, "hold_order")

	res, err := s.sendHandoff(id, signals.HandoffRequest{Note: "please process the refund for order 1234"})
	require.NoError(t, err)
	require.Equal(t, "refunds", res.To)
	require.Equal(t, []string{"orders", "refunds"}, res.HandoffPath)
	require.True(t, refusedFor(res.Refused, "general", "no capability match"), "%+v", res.Refused)

	s.approveCall(id, s.awaitApproval(id, 1, "issue_refund").CallID)
	out, err := s.result(latestRun{first})
	require.NoError(t, err)
	require.Equal(t, "refunds", out.Agent)
}

// Handoffs the run cannot take are rejected by the update with the reason,
// and recorded and ignored as signals; the runs go on unchanged.
func TestBadHandoffsAreRejectedAndTheRunGoesOn(t *testing.T) {
	t.Parallel()
	s, _ := deskStack(t, deskScripts())
	orders := s.start(workflows.AgentInput{Agent: "orders", Task: "Where is order 1234?"})
	clerk := s.start(workflows.AgentInput{Agent: "clerk", Task: "File order 77."})
	ordersCall := s.awaitApproval(orders.GetID(), 0, "hold_order")
	clerkCall := s.awaitApproval(clerk.GetID(), 0, "hold_order")

	bad := []struct {
		run  client.WorkflowRun
		to   string
		want string
	}{
		{orders, "nobody", `unknown agent "nobody"`},
		{orders, "clerk", `may hand over to general, refunds, human only, not to "clerk"`},
		{orders, "orders", `"orders" is the agent the run is with`},
		{clerk, "orders", "agent clerk has no handoffs"},
	}
	for _, b := range bad {
		_, err := s.sendHandoff(b.run.GetID(), signals.HandoffRequest{To: b.to, Note: "try", Audit: signals.Audit{By: "mallory"}})
		require.ErrorContains(t, err, b.want, "to %s", b.to)
		s.signal(b.run.GetID(), signals.Handoff, signals.HandoffRequest{To: b.to, Note: "try", Audit: signals.Audit{By: "mallory"}})
	}
	ignored := append(s.awaitIgnored(orders, 3), s.awaitIgnored(clerk, 1)...)
	for i, b := range bad {
		require.Contains(t, ignored[i], "ignored handoff signal: handoff: ")
		require.Contains(t, ignored[i], b.want)
	}

	for _, c := range []struct {
		run    client.WorkflowRun
		callID string
		agent  string
	}{{orders, ordersCall.CallID, "orders"}, {clerk, clerkCall.CallID, "clerk"}} {
		require.Equal(t, c.agent, s.status(c.run).Agent)
		s.approveCall(c.run.GetID(), c.callID)
		out, err := s.result(c.run) // the first run: nothing continued as new
		require.NoError(t, err)
		require.Equal(t, c.agent, out.Agent)
		require.Empty(t, out.HandoffPath)
		require.Empty(t, nodesOf(s.trace(c.run), signals.KindHandoff))
	}
}

// A person's handoff back to an agent already in the path is refused
// inside and the next candidate takes the run; when nobody is left, the
// update fails naming the refusals and the run goes on with its agent.
func TestPersonHandoffDoesNotBounce(t *testing.T) {
	t.Parallel()
	s, _ := deskStack(t, deskScripts())
	first := s.start(workflows.AgentInput{Agent: "general", Task: "Order 1234 arrived broken."})
	id, run := first.GetID(), latestRun{first}
	s.awaitApproval(id, 1, "hold_order") // general handed the run to orders

	res, err := s.sendHandoff(id, signals.HandoffRequest{To: "general", Note: "refund for order 1234"})
	require.NoError(t, err)
	require.Equal(t, "refunds", res.To)
	require.True(t, refusedFor(res.Refused, "general", "already in the handoff path"), "%+v", res.Refused)
	require.Equal(t, []string{"general", "orders", "refunds"}, res.HandoffPath)

	s.awaitApproval(id, 2, "issue_refund")
	_, err = s.sendHandoff(id, signals.HandoffRequest{To: "orders", Note: "back to orders"})
	require.ErrorContains(t, err, "no agent can take the run")
	require.ErrorContains(t, err, "orders (already in the handoff path")
	require.ErrorContains(t, err, "the run goes on with refunds")

	// The same agent goes on: its conversation continues (its next scripted
	// turn ends the run), told why its call did not run.
	out, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "refunds", out.Agent)
	require.Equal(t, []string{"general", "orders", "refunds"}, out.HandoffPath)
	require.JSONEq(t, `"refund issued"`, string(out.Output))
	last := lastRequestOf(s.model.Requests(), "desk-refunds")
	results := scriptedmodel.LastToolResults(last)
	require.Len(t, results, 1)
	require.Contains(t, results[0].Content, "a person handed the run over before it ran")

	handoffs := nodesOf(s.trace(run), signals.KindHandoff)
	require.Len(t, handoffs, 3)
	require.Equal(t, signals.StatusFailed, handoffs[2].Status)
	require.True(t, refusedFor(handoffs[2].Refused, "orders", "already in the handoff path"), "%+v", handoffs[2].Refused)
}

// handedBackBy answers then once the run was handed back to the agent by
// who, else goes on with script.
func handedBackBy(who string, script scriptedmodel.Script, then scriptedmodel.Turn) scriptedmodel.Script {
	return func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "handed over to you by agent "+who) {
				return then
			}
		}
		return script(req)
	}
}

// A reply while nothing waits for one is rejected; orders hands the run to
// the supervisor, whose text-only reply hands it back to orders with the
// person's words in orders' next request.
func TestPersonRepliesTextAndTheRunGoesBack(t *testing.T) {
	t.Parallel()
	scripts := deskScripts()
	scripts["desk-orders"] = handedBackBy("supervisor", scriptedmodel.Sequence(
		scriptedmodel.CallTurn("hold_order", map[string]string{"order": "1234"}),
		handoffCall("supervisor", "user_escalation", "The customer asks for a manager.", "decide on the refund"),
	), scriptedmodel.Reply("refunded in full"))
	s, _ := deskStack(t, scripts)
	first := s.start(workflows.AgentInput{Agent: "orders", Task: "I want to talk to your manager about order 1234."})
	id, run := first.GetID(), latestRun{first}

	held := s.awaitApproval(id, 0, "hold_order")
	_, err := sendReply(t, run, signals.ReplyRequest{Text: "too soon"})
	require.ErrorContains(t, err, "nothing waits for a reply")
	s.approveCall(id, held.CallID)

	awaitPhase(t, s, run, signals.PhaseAwaitingHuman)
	st := s.status(run)
	require.Equal(t, "supervisor", st.Agent)
	require.Equal(t, []string{"orders", "supervisor"}, st.HandoffPath)
	desc, err := s.client.DescribeWorkflowExecution(context.Background(), id, "")
	require.NoError(t, err)
	personRun := s.client.GetWorkflow(context.Background(), id, desc.GetWorkflowExecutionInfo().GetExecution().GetRunId())

	const words = "Refund it in full, she has been a customer for ten years."
	_, err = sendReply(t, run, signals.ReplyRequest{Text: words, Audit: signals.Audit{By: "bob"}})
	require.NoError(t, err)
	out, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "orders", out.Agent)
	require.Equal(t, []string{"orders", "supervisor", "orders"}, out.HandoffPath)

	handoffs := nodesOf(s.trace(run), signals.KindHandoff)
	require.Len(t, handoffs, 2)
	back := handoffs[1]
	require.Equal(t, "supervisor", back.From)
	require.Equal(t, "orders", back.To)
	require.Equal(t, "bob", back.By)
	require.Contains(t, string(back.Args), `"trigger":"return"`)
	last := lastRequestOf(s.model.Requests(), "desk-orders")
	require.Contains(t, lastMessage(last), "handed over to you by agent supervisor")
	require.Contains(t, lastMessage(last), words)
	recordAndReplay(t, personRun, "handoff_human_return")
}

// A run started with a person: text alone has nothing to return to, an
// output off the schema is rejected (update) or ignored (signal), and an
// output that fits completes the run.
func TestRunStartedWithAPersonCompletesWithOutput(t *testing.T) {
	t.Parallel()
	s, _ := deskStack(t, deskScripts())
	run := s.start(workflows.AgentInput{Agent: "supervisor", Task: "Sign off refund 1234."})
	awaitPhase(t, s, run, signals.PhaseAwaitingHuman)

	textOnly := signals.ReplyRequest{Text: "give it back"}
	offSchema := signals.ReplyRequest{Text: "ok", Output: json.RawMessage(`{"answer": 1}`)}
	_, err := sendReply(t, run, textOnly)
	require.ErrorContains(t, err, "the run started with supervisor")
	_, err = sendReply(t, run, offSchema)
	require.ErrorContains(t, err, "does not match the output schema")
	s.signal(run.GetID(), signals.Reply, textOnly)
	s.signal(run.GetID(), signals.Reply, offSchema)
	ignored := s.awaitIgnored(run, 2)
	require.Contains(t, ignored[0], "the run started with supervisor")
	require.Contains(t, ignored[1], "does not match the output schema")

	_, err = sendReply(t, run, signals.ReplyRequest{Text: "signed", Output: json.RawMessage(`{"resolution": "refund 1234 signed off"}`)})
	require.NoError(t, err)
	out, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "supervisor", out.Agent)
	require.JSONEq(t, `{"resolution": "refund 1234 signed off"}`, string(out.Output))
	require.Empty(t, out.HandoffPath)
	require.Empty(t, s.model.Requests(), "a person's run never calls the model")
}

// No reply within the person's human_timeout stops the run.
func TestPersonWhoDoesNotReplyStopsTheRun(t *testing.T) {
	t.Parallel()
	s, _ := deskStack(t, deskScripts())
	run := s.start(workflows.AgentInput{Agent: "night_desk", Task: "Anyone there?"})
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Contains(t, rep.Reason, "no reply from night_desk within human_timeout (2s)")
	require.Equal(t, "night_desk", rep.Agent)
}

// awaitHandoffToPerson waits until a run was handed to the supervisor and
// answers the handoff node.
func awaitHandoffToPerson(t *testing.T, s *stack, run client.WorkflowRun, path []string) signals.Node {
	t.Helper()
	awaitPhase(t, s, run, signals.PhaseAwaitingHuman)
	st := s.status(run)
	require.Equal(t, "supervisor", st.Agent)
	require.Equal(t, path, st.HandoffPath)
	handoffs := nodesOf(s.trace(run), signals.KindHandoff)
	require.Len(t, handoffs, 1)
	require.Equal(t, signals.StatusCompleted, handoffs[0].Status)
	require.Contains(t, string(handoffs[0].Args), `"trigger":"rule"`)
	return handoffs[0]
}

// finishWithPerson completes a run waiting for the supervisor.
func finishWithPerson(t *testing.T, s *stack, run client.WorkflowRun) *workflows.AgentResult {
	t.Helper()
	_, err := sendReply(t, run, signals.ReplyRequest{Text: "done", Output: json.RawMessage(`{"resolution": "handled"}`)})
	require.NoError(t, err)
	out, err := s.result(run)
	require.NoError(t, err)
	return out
}

// handoff_when tool_failures: two failed calls in a row hand the run over
// before the next model step.
func TestRuleHandsOverAfterToolFailures(t *testing.T) {
	t.Parallel()
	s, tools := deskStack(t, deskScripts())
	first := s.start(workflows.AgentInput{Agent: "billing", Task: "Fetch invoices A1 and A2."})
	run := latestRun{first}
	h := awaitHandoffToPerson(t, s, run, []string{"billing", "supervisor"})
	require.Equal(t, "tool_failure", h.Reason)
	require.Equal(t, "billing", h.From)

	calls := callsOf(s.trace(run), "fetch_invoice")
	require.Len(t, calls, 2)
	for _, c := range calls {
		require.Equal(t, signals.StatusFailed, c.Status)
	}
	require.Len(t, tools.requests("/invoice"), 2, "max_attempts 1: one request per call")
	n := 0
	for _, r := range s.model.Requests() {
		if r.Model == "desk-billing" {
			n++
		}
	}
	require.Equal(t, 2, n, "no third model step: the rule handed over first")
	require.Equal(t, []string{"billing", "supervisor"}, finishWithPerson(t, s, run).HandoffPath)
}

// handoff_when user_asks: a task asking for a person hands the run to one
// before the model is asked anything.
func TestRuleHandsOverWhenTheUserAsksForAPerson(t *testing.T) {
	t.Parallel()
	s, _ := deskStack(t, deskScripts())
	first := s.start(workflows.AgentInput{Agent: "greeter", Task: "let me talk to a person"})
	run := latestRun{first}
	h := awaitHandoffToPerson(t, s, run, []string{"greeter", "supervisor"})
	require.Equal(t, "user_escalation", h.Reason)
	require.Empty(t, nodesOf(s.trace(run), signals.KindRequest), "handed over at the first step")
	require.Empty(t, s.model.Requests())
	require.Equal(t, "supervisor", finishWithPerson(t, s, run).Agent)
}
