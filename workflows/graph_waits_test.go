package workflows

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A graph run waits as a free-form run does: at a human node, with a
// tool node's or an llm node's calls held for approval, at the budget
// rung of an llm node's request, it continues as new when Temporal
// suggests it, and the next generation waits at the same graph node for
// the same thing.

// suggestWhileWaitingBy is suggestWhileWaiting with a wake-up signal the
// run ignores: an approval of a call it does not have (a reply would
// answer a graph's human node).
func (h *harness) suggestWhileWaitingBy() {
	h.env.RegisterDelayedCallback(func() {
		h.env.SetContinueAsNewSuggested(true)
		h.env.SignalWorkflow(signals.Approve, map[string]any{"call_id": "n99", "decision": "approve", "by": "someone"})
	}, time.Minute)
}

// toolGraph is one tool node T calling b (approval always, a write) and
// writing state.seat, then the end with the State; a second visit of T
// would end at X, whose output the run does not have.
func toolGraph() *config.Resolved {
	spec := approvalSpec()
	spec.Agent.Graph = &config.Graph{
		Start: "T",
		Nodes: map[string]config.GraphNode{
			"T": {Tool: "b", Args: map[string]any{"seat": "12A"}, OutputPath: "†state.seat"},
			"E": {End: true},
			"X": {End: true, Output: "†state.visited_twice"},
		},
		Edges: []config.GraphEdge{{From: "T", To: "E", When: "visits.T == 1"}, {From: "T", To: "X"}},
	}
	return spec
}

// llmGraph is one llm node L, then the end with the State once L was
// visited visits times (else X, whose output the run does not have).
func llmGraph(spec *config.Resolved, visits int) *config.Resolved {
	spec.Agent.Graph = &config.Graph{
		Start: "L",
		Nodes: map[string]config.GraphNode{"L": {LLM: true}, "E": {End: true}, "X": {End: true, Output: "†state.visits_differ"}},
		Edges: []config.GraphEdge{{From: "L", To: "E", When: fmt.Sprintf("visits.L == %d", visits)}, {From: "L", To: "X"}},
	}
	return spec
}

func TestGraphHumanNodeContinuesAsNewWhileWaiting(t *testing.T) {
	h := newHarness(t, humanGraph(), nil, okEcho)
	h.suggestWhileWaitingBy()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "ask"})
	next := continuedInput(t, h)
	run := next.Continued
	human := carriedHumanNode(t, run)
	require.Equal(t, "H", run.GraphAt)
	require.Equal(t, 1, run.Visits["H"])

	h2 := newHarness(t, humanGraph(), nil, okEcho)
	var seen signals.Status
	var got updateResult
	h2.env.RegisterDelayedCallback(func() { seen = h2.status() }, 30*time.Second)
	h2.replyWith(time.Minute, signals.ReplyRequest{Text: "yes", Output: json.RawMessage(`{"ok": true}`)}, &got)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, got.rejected)
	require.Equal(t, signals.PhaseAwaitingHuman, seen.Phase)
	require.Equal(t, "completed", string(res.Status))
	require.JSONEq(t, `{"ok": true}`, string(res.Output))
	humans := nodesByKind(h2.trace(), signals.KindHuman)
	var waited []signals.Node
	for _, n := range humans {
		if n.GraphNode == "H" {
			waited = append(waited, n)
		}
	}
	require.Len(t, waited, 1, "no second human node")
	require.Equal(t, human, waited[0].ID)
	require.Equal(t, signals.StatusCompleted, waited[0].Status)
}

func TestGraphToolNodeApprovalContinuesAsNewWhileWaiting(t *testing.T) {
	h := newHarness(t, toolGraph(), nil, echoTool)
	h.suggestWhileWaitingBy()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "book"})
	next := continuedInput(t, h)
	run := next.Continued
	require.Empty(t, h.toolReqs, "nothing runs before the decision")
	require.NotNil(t, run.Resume)
	require.Empty(t, run.Resume.Request, "a tool node's call has no model request")
	var held string
	for id := range run.Resume.Waiting.Since {
		held = id
	}
	require.Equal(t, signals.StatusAwaitingApproval, statuses(run)[held])
	require.Equal(t, signals.PhaseAwaitingApproval, run.Phase)

	h2 := newHarness(t, toolGraph(), nil, echoTool)
	var seen signals.Status
	var got updateResult
	h2.env.RegisterDelayedCallback(func() { seen = h2.status() }, 30*time.Second)
	h2.approve(time.Minute, signals.ApproveRequest{CallID: held, Decision: "approve", Audit: signals.Audit{By: "ops"}}, &got)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, got.rejected)
	require.NoError(t, got.err)
	require.Equal(t, []signals.PendingApproval{{CallID: held, Tool: "b", Args: json.RawMessage(`{"seat":"12A"}`), Since: seen.PendingApprovals[0].Since}}, seen.PendingApprovals)
	require.Equal(t, []string{"b"}, toolNamesOf(h2.toolReqs), "b ran once, after the approval")
	require.Equal(t, "completed", string(res.Status))
	require.Equal(t, 1, res.Generation)
	require.JSONEq(t, `{"seat": {"seat": "12A"}}`, string(res.Output), "ended at E: T counted once")
	tr := h2.trace()
	require.Len(t, nodesOfCallsTo(tr, "b"), 1, "no second node for the held call")
	require.Equal(t, signals.StatusCompleted, nodeByID(tr, held).Status)
}

func TestGraphLLMNodeApprovalContinuesAsNewWhileWaiting(t *testing.T) {
	spec := func() *config.Resolved { return llmGraph(approvalSpec(), 1) }
	h := newHarness(t, spec(), waitingReplies()[:1], echoTool)
	h.suggestWhileWaitingBy()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "book"})
	next := continuedInput(t, h)
	run := next.Continued
	require.Equal(t, []string{"a"}, toolNamesOf(h.toolReqs), "b waits for its approval; a, which needs none, ran")
	require.NotNil(t, run.Resume)
	require.Equal(t, "n2", run.Resume.Request, "the llm node's calls are resumed")
	require.Equal(t, signals.StatusAwaitingApproval, statuses(run)["n3"])

	h2 := newHarness(t, spec(), nil, echoTool)
	var got updateResult
	h2.approve(time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "approve"}, &got)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, got.rejected)
	require.Equal(t, []string{"b"}, toolNamesOf(h2.toolReqs), "b ran once, after the approval; a was not run again")
	require.Equal(t, "completed", string(res.Status))
	require.JSONEq(t, `{"seat": "12A"}`, string(mustJSON(decodeOrString(res.Output).(map[string]any)["seat"].(map[string]any))))
	require.Empty(t, h2.requests, "the llm node's step is finished, not asked again")
}

// A graph run waiting at the budget rung of an llm node's request is
// carried too: the next generation waits at the same budget node and
// asks once a person raised the budget.
func TestGraphBudgetWaitIsCarriedAcrossContinueAsNew(t *testing.T) {
	spec := func() *config.Resolved {
		s := budgetSpec(config.Budget{ModelRequests: ptr(1)}, "human", "stop")
		s.Agent.Policies.HumanTimeout = config.Duration(time.Hour)
		s.Agent.Graph = &config.Graph{
			Start: "L",
			Nodes: map[string]config.GraphNode{"L": {LLM: true}, "M": {LLM: true}, "E": {End: true}, "X": {End: true, Output: "†state.visits_differ"}},
			Edges: []config.GraphEdge{{From: "L", To: "M"}, {From: "M", To: "E", When: "visits.M == 1"}, {From: "M", To: "X"}},
		}
		return s
	}
	h := newHarness(t, spec(), []activities.ModelReply{{Content: "first"}}, echoTool)
	h.suggestWhileWaitingBy()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "t"})
	next := continuedInput(t, h)
	run := next.Continued
	node := carriedBudgetNode(t, run)
	require.Equal(t, "M", run.GraphAt)
	require.Len(t, h.requests, 1, "M's request waits for the raise")

	h2 := newHarness(t, spec(), []activities.ModelReply{{Content: "second"}}, echoTool)
	var raised updateResult
	h2.budgetUpdate(time.Minute, signals.BudgetRequest{Raise: &signals.BudgetRaise{ModelRequests: 1}}, &raised)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, raised.rejected)
	require.Equal(t, "completed", string(res.Status), "ended at E: M counted once")
	require.Len(t, h2.requests, 1, "asked once, after the raise")
	require.Equal(t, signals.StatusCompleted, nodeByID(h2.trace(), node).Status, "decided at the same node")
}

// Runs recorded before graph-waits go on waiting: the reply lands in the
// same generation, which continues as new only before its next visit.
func TestGraphRunsBeforeGraphWaitsGoOnWaiting(t *testing.T) {
	h := newHarness(t, humanGraph(), nil, okEcho)
	h.before(versionGraphWaits)
	h.suggestWhileWaitingBy()
	var got updateResult
	h.replyWith(2*time.Minute, signals.ReplyRequest{Text: "yes", Output: json.RawMessage(`1`)}, &got)
	_, _ = h.run(AgentInput{Agent: "agent", Task: "ask"})
	require.NoError(t, got.rejected)
	next := continuedInput(t, h)
	require.Nil(t, next.Continued.Resume, "nothing was carried: the wait went on")
	require.Equal(t, "E", next.Continued.GraphAt)
	require.JSONEq(t, `1`, string(mustJSON(next.Continued.State["human"])))
}

// A graph's human node takes no reply that says nothing.
func TestGraphHumanNodeRefusesAnEmptyReply(t *testing.T) {
	h := newHarness(t, humanGraph(), nil, okEcho)
	var empty, ok updateResult
	h.replyWith(time.Minute, signals.ReplyRequest{Text: "  "}, &empty)
	h.replyWith(2*time.Minute, signals.ReplyRequest{Text: "go", Output: json.RawMessage(`2`)}, &ok)
	res, err := h.run(AgentInput{Agent: "agent", Task: "ask"})
	require.NoError(t, err)
	require.ErrorContains(t, empty.rejected, `reply: "text" is empty (say something, or give "output")`)
	require.NoError(t, ok.rejected)
	require.JSONEq(t, `2`, string(res.Output))
}

// An llm node whose reply answers nothing is visited again, as a
// free-form step asks again: the model is told, and the loop detector
// counts it.
func TestGraphLLMNodeAsksAgainAfterAReplyThatAnswersNothing(t *testing.T) {
	replies := []activities.ModelReply{{Content: "", FinishReason: "stop"}, {Refusal: "I can't"}, {Content: "done"}}
	h := newHarness(t, llmGraph(echoSpec(), 3), replies, echoTool)
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status), "L was visited three times")
	require.Len(t, h.requests, 3)
	var told []string
	for _, n := range nodesByKind(h.trace(), signals.KindOutput) {
		if n.Status == signals.StatusFailed {
			require.Equal(t, "L", n.GraphNode)
			told = append(told, n.Error)
		}
	}
	require.Len(t, told, 2)
	require.Contains(t, told[0], "the reply was empty")
	require.Contains(t, told[1], "the reply was a refusal")
}

// Runs recorded before graph-no-answer took an empty reply as the llm
// node's answer.
func TestGraphRunsBeforeGraphNoAnswerTakeTheEmptyReply(t *testing.T) {
	replies := []activities.ModelReply{{Content: "", FinishReason: "stop"}, {Content: "done"}}
	h := newHarness(t, llmGraph(echoSpec(), 1), replies, echoTool)
	h.before(versionGraphNoAnswer)
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	require.Len(t, h.requests, 1)
}
