package testsuite

import (
	"context"
	"encoding/json"
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

// customerServiceConfig is seed 004's customer-service registry: a general
// agent, an orders agent, a refunds agent and a person, each model agent
// with a scripted model of its own (the test double for the model).
const customerServiceConfig = `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: lookup_order, builtin: noop, parameters: { type: object } }
  - { name: issue_refund, builtin: noop, effect: write, parameters: { type: object } }
agents:
  - name: general
    description: Answers general questions and routes the customer.
    capabilities: [general]
    tier: 1
    instructions: You answer customers.
    model: { name: cs-general }
    handoffs: ["*"]
  - name: orders
    description: Looks up orders, shipping and delivery status.
    capabilities: [orders, order_status, shipping]
    tier: 2
    instructions: You handle orders.
    model: { name: cs-orders }
    tools: [lookup_order]
    handoffs: [general, refunds, human]
  - name: refunds
    description: Processes refunds and returns.
    capabilities: [refunds, process_refund, returns]
    tier: 2
    instructions: You handle refunds.
    model: { name: cs-refunds }
    tools: [issue_refund]
    handoffs: [human]
  - name: supervisor
    description: A person who signs off refunds and takes over what agents cannot do.
    kind: human
    output_schema: { type: object, required: [resolution], properties: { resolution: { type: string } } }
`

func handoffCall(to, reason, summary, next string) scriptedmodel.Turn {
	args := map[string]string{"reason": reason, "summary": summary, "suggested_next_action": next}
	if to != "" {
		args["to"] = to
	}
	return scriptedmodel.CallTurn("handoff", args)
}

// customerServiceScripts: general hands the customer over without naming
// anyone (the registry picks orders by capability); orders looks the order
// up and tries to hand it back to general (refused: already in the path),
// so refunds, the next candidate, takes it; refunds issues the refund and
// hands the sign-off to a person.
func customerServiceScripts() map[string]scriptedmodel.Script {
	return map[string]scriptedmodel.Script{
		"cs-general": scriptedmodel.Sequence(
			handoffCall("", "out_of_scope", "The customer asks where order 1234 is and wants a refund for it.", "look up order 1234 status"),
		),
		"cs-orders": scriptedmodel.Sequence(
			scriptedmodel.CallTurn("lookup_order", map[string]string{"order": "1234"}),
			handoffCall("general", "out_of_scope", "Order 1234 was delivered damaged; the customer wants a refund.", "process a refund for order 1234"),
		),
		"cs-refunds": scriptedmodel.Sequence(
			scriptedmodel.CallTurn("issue_refund", map[string]any{"order": "1234", "amount": 80}),
			handoffCall("", "user_escalation", "Refund for order 1234 issued; a person must sign it off.", "sign off the refund"),
		),
	}
}

// Seed 004's chain: general -> orders -> refunds -> a person, each handoff
// chosen from the registry, a bounce back to general refused, the run found
// under each agent in turn, and the person's reply completing it.
func TestCustomerServiceChainHandsOverToAPerson(t *testing.T) {
	t.Parallel()
	s := newStack(t, customerServiceConfig, customerServiceScripts())
	first := s.start(workflows.AgentInput{Agent: "general", Task: "Where is my order 1234? It arrived broken, I want my money back.", Input: json.RawMessage(`{"user": "cust-42"}`)})
	firstRunID := first.GetRunID() // a WorkflowRun's Get follows the chain and moves its run id
	run := latestRun{first}        // each handoff continues as new

	awaitPhase(t, s, run, signals.PhaseAwaitingHuman)
	st := s.status(run)
	require.Equal(t, "supervisor", st.Agent)
	require.Equal(t, []string{"general", "orders", "refunds", "supervisor"}, st.HandoffPath)

	// Visibility lists the run under the agent it is with now.
	require.Eventually(t, func() bool {
		resp, err := s.client.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
			Query: "WorkflowId = '" + run.GetID() + "' AND AgentName = 'supervisor' AND AgentPhase = 'awaiting_human'",
		})
		return err == nil && len(resp.Executions) == 1
	}, 20*time.Second, 200*time.Millisecond)

	// An output that fails the supervisor's schema is refused; text alone
	// would hand the run back to refunds; an output completes it.
	_, err := sendReply(t, run, signals.ReplyRequest{Text: "ok", Output: json.RawMessage(`{"answer": 1}`)})
	require.ErrorContains(t, err, "output schema")
	_, err = sendReply(t, run, signals.ReplyRequest{Text: "Signed off.", Output: json.RawMessage(`{"resolution": "refunded 80"}`)})
	require.NoError(t, err)

	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "supervisor", res.Agent)
	require.JSONEq(t, `{"resolution": "refunded 80"}`, string(res.Output))
	require.Equal(t, []string{"general", "orders", "refunds", "supervisor"}, res.HandoffPath)

	tr := s.trace(run)
	handoffs := nodesOf(tr, signals.KindHandoff)
	require.Len(t, handoffs, 3)
	var hops []string
	for _, h := range handoffs {
		require.Equal(t, signals.StatusCompleted, h.Status, h.ID)
		hops = append(hops, h.From+"->"+h.To)
	}
	require.Equal(t, []string{"general->orders", "orders->refunds", "refunds->supervisor"}, hops)
	require.True(t, refusedFor(handoffs[1].Refused, "general", "already in the handoff path"), "the bounce back to general is refused: %+v", handoffs[1].Refused)

	// The refunds agent's first request carried the handoff context: who
	// handed over, why, and what orders found.
	var hc workflows.HandoffContext
	require.NoError(t, json.Unmarshal(handoffs[1].Output, &hc))
	require.Equal(t, "orders", hc.SourceAgent)
	require.Equal(t, "cust-42", hc.User)
	require.Equal(t, []string{"general", "orders", "refunds"}, hc.HandoffPath)
	require.NotEmpty(t, hc.ToolRecords)
	require.Equal(t, "lookup_order", hc.ToolRecords[0].Tool)
	req, ok := firstRequestOf(s.model.Requests(), "cs-refunds")
	require.True(t, ok, "refunds asked its model")
	brief := req.Messages[len(req.Messages)-1].Content
	require.Contains(t, brief, "handed over to you by agent orders")
	require.Contains(t, brief, "process a refund for order 1234")

	// The first agent's run (the handoff tool, the registry read, the
	// target resolved, continue-as-new) and the person's (a reply with
	// output completes it) replay.
	recordAndReplay(t, s.client.GetWorkflow(context.Background(), first.GetID(), firstRunID), "handoff_chain_general")
	recordAndReplay(t, run, "handoff_chain_person")
}

// firstRequestOf is the first request a model got (the model agent's
// first step: the handoff context is its last message).
func firstRequestOf(reqs []openai.ChatCompletionRequest, model string) (openai.ChatCompletionRequest, bool) {
	for _, r := range reqs {
		if r.Model == model {
			return r, true
		}
	}
	return openai.ChatCompletionRequest{}, false
}

func refusedFor(refused []signals.HandoffRefusal, agent, why string) bool {
	for _, r := range refused {
		if r.Agent == agent && strings.Contains(r.Why, why) {
			return true
		}
	}
	return false
}

// awaitPhase waits for a run's phase; the run's status and trace are in
// the failure.
func awaitPhase(t *testing.T, s *stack, run client.WorkflowRun, phase signals.Phase) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if p, _ := s.phase(run); p == phase {
			return
		}
		desc, err := s.client.DescribeWorkflowExecution(context.Background(), run.GetID(), "")
		if err == nil && desc.GetWorkflowExecutionInfo().GetCloseTime() != nil {
			_, rerr := s.result(run)
			t.Fatalf("the run closed before phase %s: %v", phase, rerr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, _ := json.MarshalIndent(s.trace(run), "", " ")
	var failures []string
	it := s.client.GetWorkflowHistory(context.Background(), run.GetID(), "", false, 0)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			break
		}
		if f := ev.GetWorkflowTaskFailedEventAttributes(); f != nil {
			failures = append(failures, f.GetFailure().GetMessage())
		}
	}
	t.Fatalf("phase %s not reached in 60s; status %+v\nworkflow task failures %q\ntrace %s", phase, s.status(run), failures, b)
}

// latestRun is a run whose queries, updates and history go to its
// workflow id's latest run (a handoff continues as new); its result
// follows the chain to its end.
type latestRun struct{ client.WorkflowRun }

func (latestRun) GetRunID() string { return "" }
