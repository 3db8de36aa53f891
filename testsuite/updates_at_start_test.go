package testsuite

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// atOnceConfig: a conversation, a person's desk, and a clerk whose write
// waits for approval and who may hand over to the desk.
const atOnceConfig = `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: hold_order, builtin: noop, effect: write, approval: always, parameters: { type: object } }
agents:
  - { name: concierge, instructions: Help., model: { name: at-once-chat }, conversation: { idle_timeout: 1m } }
  - { name: clerk, instructions: You file paperwork., model: { name: at-once-clerk }, tools: [hold_order], handoffs: [desk] }
  - { name: desk, kind: human }
  - name: filer
    instructions: File it.
    tools: [hold_order]
    handoffs: [desk]
    graph:
      start: H
      nodes: { H: { tool: hold_order, args: { order: "77" } }, S: { human: true }, E: { end: true } }
      edges: [ { from: H, to: S }, { from: S, to: E } ]
  - name: signer
    graph: { start: S, nodes: { S: { human: true }, E: { end: true, output: "†state.human" } }, edges: [ { from: S, to: E } ] }
`

func atOnceStack(t *testing.T) *stack {
	return newStack(t, atOnceConfig, map[string]scriptedmodel.Script{
		"at-once-chat":  scriptedmodel.Sequence(),
		"at-once-clerk": scriptedmodel.Sequence(scriptedmodel.CallTurn("hold_order", map[string]string{"order": "77"})),
	})
}

// Each update, sent by a client the moment after it started the run, is
// taken: it waits in its handler while the run resolves its agent, then is
// checked against the run's state and answered on its merits. None is
// refused because the run is starting.
func TestEachUpdateSentRightAfterTheStartIsTaken(t *testing.T) {
	t.Parallel()
	s := atOnceStack(t)

	chat := s.start(workflows.AgentInput{Agent: "concierge", Task: "hello"})
	var queued signals.MessageResult
	require.NoError(t, s.updateInto(chat, signals.Message, signals.MessageRequest{Text: "and a hotel?"}, &queued))
	require.Equal(t, 1, queued.Queued)

	desk := s.start(workflows.AgentInput{Agent: "desk", Task: "sign the form"})
	var replied signals.ReplyResult
	require.NoError(t, s.updateInto(desk, signals.Reply, signals.ReplyRequest{Text: "signed", Output: json.RawMessage(`{"signed":true}`)}, &replied))
	require.NotEmpty(t, replied.NodeID)
	res, err := s.result(desk)
	require.NoError(t, err)
	require.JSONEq(t, `{"signed":true}`, string(res.Output))

	handed := s.start(workflows.AgentInput{Agent: "clerk", Task: "file form 7"})
	var handoff signals.HandoffResult
	require.NoError(t, s.updateInto(handed, signals.Handoff, signals.HandoffRequest{To: "desk"}, &handoff))
	require.Equal(t, "desk", handoff.To)

	edited := s.start(workflows.AgentInput{Agent: "clerk", Task: "file form 7"})
	var edit signals.EditResult
	require.NoError(t, s.updateInto(edited, signals.Edit, signals.EditRequest{NodeID: "n1", Output: json.RawMessage(`"file form 8"`)}, &edit))
	require.Equal(t, "n1", edit.Edited)

	// Nothing waits for an approval or a budget decision a moment after
	// the start: each is answered so, by the run's own state.
	clerk := s.start(workflows.AgentInput{Agent: "clerk", Task: "file form 9"})
	err = s.update(clerk, signals.Approve, signals.ApproveRequest{CallID: "n3", Decision: signals.DecisionApprove})
	require.ErrorContains(t, err, `approve: "n3" is not a call of this run`)
	budget := s.start(workflows.AgentInput{Agent: "clerk", Task: "file form 10"})
	err = s.update(budget, signals.Budget, signals.BudgetRequest{Stop: true})
	require.ErrorContains(t, err, "budget: ")
	require.NotContains(t, err.Error(), "starting")

	// The message joined the conversation; the edit's task is the one
	// the model is asked; the handoff reached the desk.
	require.Eventually(t, func() bool { return len(messagesOf(s.trace(chat))) == 2 }, 20*time.Second, 100*time.Millisecond)
	require.Contains(t, messagesOf(s.trace(chat))[1], "and a hotel?")
	require.Eventually(t, func() bool { return s.status(handed).Agent == "desk" }, 20*time.Second, 100*time.Millisecond)
}

// The same in a graph: each update sent the moment after the start is
// taken by a graph run, or answered on its merits by the graph's state.
func TestEachUpdateSentRightAfterTheStartIsTakenInAGraph(t *testing.T) {
	t.Parallel()
	s := atOnceStack(t)

	signer := s.start(workflows.AgentInput{Agent: "signer", Task: "sign the form"})
	var replied signals.ReplyResult
	require.NoError(t, s.updateInto(signer, signals.Reply, signals.ReplyRequest{Text: "signed", Output: json.RawMessage(`{"signed":true}`)}, &replied))
	res, err := s.result(signer)
	require.NoError(t, err)
	require.JSONEq(t, `{"signed":true}`, string(res.Output))

	handed := s.start(workflows.AgentInput{Agent: "filer", Task: "file form 7"})
	var handoff signals.HandoffResult
	require.NoError(t, s.updateInto(handed, signals.Handoff, signals.HandoffRequest{To: "desk"}, &handoff))
	require.Equal(t, "desk", handoff.To)

	edited := s.start(workflows.AgentInput{Agent: "filer", Task: "file form 7"})
	var edit signals.EditResult
	require.NoError(t, s.updateInto(edited, signals.Edit, signals.EditRequest{NodeID: "n1", Output: json.RawMessage(`"file form 8"`)}, &edit))
	require.Equal(t, "n1", edit.Edited)

	filer := s.start(workflows.AgentInput{Agent: "filer", Task: "file form 9"})
	err = s.update(filer, signals.Approve, signals.ApproveRequest{CallID: "n9", Decision: signals.DecisionApprove})
	require.ErrorContains(t, err, `approve: "n9" is not a call of this run`)
	err = s.update(filer, signals.Budget, signals.BudgetRequest{Stop: true})
	require.ErrorContains(t, err, "budget: ")
	require.NotContains(t, err.Error(), "starting")
	require.Eventually(t, func() bool { return s.status(handed).Agent == "desk" }, 20*time.Second, 100*time.Millisecond)
}

// messagesOf are the conversation's messages as the trace holds them:
// the task's args, then each message's.
func messagesOf(tr signals.Trace) []string {
	var out []string
	for _, n := range nodesOf(tr, signals.KindTask) {
		if n.Status == signals.StatusCompleted {
			out = append(out, string(n.Args))
		}
	}
	return out
}

// The plain Temporal CLI: `temporal workflow start` and, at once, `temporal
// workflow update execute`; the update is taken, with no retry by anyone.
func TestTemporalCLIUpdateRightAfterStartIsTaken(t *testing.T) {
	t.Parallel()
	s := atOnceStack(t)
	id := fmt.Sprintf("at-once-cli-%d", time.Now().UnixNano())
	temporalCLI(t, "workflow", "start", "--type", workflows.WorkflowName, "--task-queue", s.queue,
		"--workflow-id", id, "--input", `{"agent": "concierge", "task": "hello"}`)
	s.mu.Lock()
	s.started = append(s.started, id)
	s.mu.Unlock()
	out := temporalCLI(t, "workflow", "update", "execute", "--workflow-id", id, "--name", signals.Message,
		"--input", `{"text": "and a hotel?", "by": "ana"}`, "--output", "json")
	require.Regexp(t, `"queued":\s*1`, out)
}

// A conversation flooded with messages continues as new several times
// (the harness has Temporal suggest it every suggestContinueAsNewEvents
// events); every message, sent as an update without a retry, is taken by
// one generation or carried into the next, and all are in the trace in the
// order sent.
func TestAConversationTakesEveryMessageThroughItsSwitches(t *testing.T) {
	t.Parallel()
	s := atOnceStack(t)
	chat := s.start(workflows.AgentInput{Agent: "concierge", Task: "message 0"})
	// The run the workflow id names now (GetWorkflow resolves it once).
	latest := func() client.WorkflowRun { return s.client.GetWorkflow(t.Context(), chat.GetID(), "") }
	const flood, burst = 60, 5
	for i := 1; i <= flood; i++ {
		var res signals.MessageResult
		require.NoError(t, s.updateInto(chat, signals.Message, signals.MessageRequest{Text: fmt.Sprint("message ", i)}, &res), "message %d", i)
		require.Positive(t, res.Queued, "message %d", i)
		if i%burst == 0 {
			// A burst is taken before the next is sent, so the inbox
			// stays under its bound.
			require.Eventually(t, func() bool { return len(messagesOf(s.trace(latest()))) == i+1 }, 30*time.Second, 50*time.Millisecond, "message %d", i)
		}
	}
	require.Eventually(t, func() bool { return s.status(latest()).Phase == signals.PhaseAwaitingUser }, 30*time.Second, 100*time.Millisecond)
	require.GreaterOrEqual(t, s.status(latest()).Generation, 2, "the run continued as new while messages came")
	for i, m := range messagesOf(s.trace(latest())) {
		require.Contains(t, m, fmt.Sprintf(`"message %d"`, i), "in the order sent")
	}
}
