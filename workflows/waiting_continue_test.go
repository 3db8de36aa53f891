package workflows

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A run waiting for approval continues as new when Temporal suggests it,
// and the next generation waits for the same call: same call id, the
// call not run before the decision and run once after it.

func waitingReplies() []activities.ModelReply {
	return []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "b", `{"seat": "12A", "_outputPath": "†state.seat"}`), call("k2", "a", `{"q": 1}`)}},
		{Content: "done"},
	}
}

// suggestWhileWaiting has Temporal suggest continue-as-new after a minute,
// with an ignored signal to wake the run (the suggestion comes with a
// workflow task).
func (h *harness) suggestWhileWaiting() {
	h.env.RegisterDelayedCallback(func() {
		h.env.SetContinueAsNewSuggested(true)
		h.env.SignalWorkflow(signals.Reply, map[string]any{"text": "flood", "by": "someone"})
	}, time.Minute)
}

func TestWaitingRunContinuesAsNewAndKeepsTheApproval(t *testing.T) {
	h := newHarness(t, approvalSpec(), waitingReplies(), echoTool)
	h.suggestWhileWaiting()
	_, err := h.run(AgentInput{Agent: "agent", Task: "book"})
	require.Error(t, err)
	next := continuedInput(t, h)
	run := next.Continued
	require.Equal(t, []string{"a"}, toolNamesOf(h.toolReqs), "b waits for its approval; a, which needs none, ran")
	require.Equal(t, signals.StatusAwaitingApproval, statuses(run)["n3"])
	require.NotNil(t, run.Resume)
	require.Equal(t, "n2", run.Resume.Request, "the step's calls are resumed")
	require.NotNil(t, run.Resume.Waiting)
	require.Contains(t, run.Resume.Waiting.Since, "n3", "the wait keeps its start, so its deadline")
	require.Equal(t, signals.PhaseAwaitingApproval, run.Phase)

	// The next generation: the same call waits, and runs once approved.
	h2 := newHarness(t, approvalSpec(), waitingReplies()[1:], echoTool)
	var seen signals.Status
	var got updateResult
	h2.env.RegisterDelayedCallback(func() { seen = h2.status() }, 30*time.Second)
	h2.approve(time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "approve", Audit: signals.Audit{By: "ops"}}, &got)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, got.rejected)
	require.NoError(t, got.err)
	require.Equal(t, signals.PhaseAwaitingApproval, seen.Phase)
	require.Equal(t, []signals.PendingApproval{{CallID: "n3", Tool: "b", Args: json.RawMessage(`{"seat":"12A"}`), Since: seen.PendingApprovals[0].Since}}, seen.PendingApprovals)
	require.Equal(t, []string{"b"}, toolNamesOf(h2.toolReqs), "b ran once, after the approval; a was not run again")
	require.Equal(t, "completed", string(res.Status))
	require.Equal(t, 1, res.Generation)
	tr := h2.trace()
	require.Equal(t, signals.StatusCompleted, nodeByID(tr, "n3").Status)
	require.Len(t, nodesByKind(tr, signals.KindApproval), 1)
	require.Len(t, nodesOfCallsTo(tr, "b"), 1, "no second node for the held call")
}

func TestWaitingRunKeepsItsDeadlineAcrossGenerations(t *testing.T) {
	h := newHarness(t, approvalSpec(), waitingReplies(), echoTool)
	h.suggestWhileWaiting()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "book"})
	next := continuedInput(t, h)
	// The call has waited 50 of its 60 minutes.
	start := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	next.Continued.Resume.Waiting.Since["n3"] = start.Add(-50 * time.Minute)

	h2 := newHarness(t, approvalSpec(), waitingReplies()[1:], echoTool)
	h2.env.SetStartTime(start)
	_, err := h2.run(next)
	require.NoError(t, err)
	require.Empty(t, h2.toolReqs, "b never ran: nobody approved it")
	approval := nodesByKind(h2.trace(), signals.KindApproval)
	require.Len(t, approval, 1)
	require.Contains(t, approval[0].Error, "no approval decision within human_timeout")
	require.WithinDuration(t, start.Add(10*time.Minute), approval[0].At, time.Minute, "the deadline stays the first generation's")
}

func TestRunsBeforeWaitingContinueGoOnWaiting(t *testing.T) {
	h := newHarness(t, approvalSpec(), waitingReplies(), echoTool)
	h.before(versionWaitingContinue)
	h.suggestWhileWaiting()
	var got updateResult
	h.approve(2*time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "approve"}, &got)
	_, _ = h.run(AgentInput{Agent: "agent", Task: "book"})
	require.NoError(t, got.err)
	// The old behaviour: the wait went on, and the run continued as new
	// at the next step, after the approved call ran.
	next := continuedInput(t, h)
	require.Nil(t, next.Continued.Resume)
	require.Equal(t, signals.StatusCompleted, statuses(next.Continued)["n3"])
	require.ElementsMatch(t, []string{"a", "b"}, toolNamesOf(h.toolReqs))
}

func nodesOfCallsTo(tr signals.Trace, tool string) []signals.Node {
	var out []signals.Node
	for _, n := range tr.Nodes {
		if n.Kind == signals.KindCall && n.Tool == tool {
			out = append(out, n)
		}
	}
	return out
}

func personSpec(t *testing.T) *config.Resolved {
	f := &config.File{
		Model:  config.Model{BaseURL: "http://127.0.0.1:1/v1", Name: "scripted:test"},
		Agents: []config.Agent{{Name: "person", Kind: config.KindHuman, Policies: config.Policies{HumanTimeout: config.Duration(time.Hour)}}},
	}
	f.SetDefaults()
	r, err := f.Resolve("person", func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	return r
}

// A person agent's run waits at the same human node after it continued
// as new while waiting, and the person's reply completes it there.
func TestWaitingPersonAgentContinuesAsNewAtTheSameNode(t *testing.T) {
	h := newHarness(t, personSpec(t), nil, echoTool)
	h.suggestWhileWaiting()
	_, _ = h.run(AgentInput{Agent: "person", Task: "decide"})
	next := continuedInput(t, h)
	run := next.Continued
	human := carriedHumanNode(t, run)
	require.Equal(t, signals.PhaseAwaitingHuman, run.Phase)

	h2 := newHarness(t, personSpec(t), nil, echoTool)
	var got updateResult
	h2.env.RegisterDelayedCallback(func() {
		h2.env.UpdateWorkflow(signals.Reply, "reply-1", &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { got.rejected = err },
			OnAccept:   func() {},
			OnComplete: func(v any, err error) { got.result, got.err = v, err },
		}, signals.ReplyRequest{Text: "yes", Output: json.RawMessage(`{"ok": true}`)})
	}, time.Minute)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, got.rejected)
	require.Equal(t, "completed", string(res.Status))
	require.JSONEq(t, `{"ok": true}`, string(res.Output))
	humans := nodesByKind(h2.trace(), signals.KindHuman)
	require.Len(t, humans, 1, "no second human node")
	require.Equal(t, human, humans[0].ID)
	require.Equal(t, signals.StatusCompleted, humans[0].Status)
}

// releaseHeldOf holds n3 for approval and n4 waiting on it, as a switch
// does, then has an edit take the run: both are settled as without the
// switch.
func releaseHeldOf(ctx workflow.Context, spec *config.Resolved) (*Run, error) {
	r, err := newRunner(&Run{Spec: spec, Trace: Trace{Nodes: []Node{
		{Node: signals.Node{ID: "n3", Kind: signals.KindCall, Status: signals.StatusAwaitingApproval}},
		{Node: signals.Node{ID: "n4", Kind: signals.KindCall, Status: signals.StatusPending}},
	}}})
	if err != nil {
		return nil, err
	}
	live(r.life.BeginSwitch())
	r.person().ExpectApproval("n3", "b")
	r.waiting().Release(ctx, stepWaits{calls: []*stepCall{{nodeID: "n3", held: true, done: true}, {nodeID: "n4"}}})
	if r.person().Waiting() || r.life.Switching() {
		return nil, fmt.Errorf("still waiting for %v (switching %v)", r.person().WaitingApprovals(), r.life.Switching())
	}
	if !r.run.Nodes[0].StoppedBeforeRun() || !r.run.Nodes[1].StoppedBeforeRun() {
		return nil, fmt.Errorf("the edit sees %s (%q) or %s (%q) as finished", r.run.Nodes[0].ID, r.run.Nodes[0].NotRun, r.run.Nodes[1].ID, r.run.Nodes[1].NotRun)
	}
	return r.run, nil
}

func TestAnEditDuringTheSwitchSettlesTheHeldCalls(t *testing.T) {
	env := (&testsuite.WorkflowTestSuite{}).NewTestWorkflowEnvironment()
	env.RegisterWorkflow(releaseHeldOf)
	env.ExecuteWorkflow(releaseHeldOf, approvalSpec())
	require.NoError(t, env.GetWorkflowError())
	var run Run
	require.NoError(t, env.GetWorkflowResult(&run))
	require.Equal(t, signals.StatusFailed, run.Nodes[0].Status)
	require.Equal(t, interruptedText, run.Nodes[0].Error, "as a call an edit stopped before it ran: the edit's resume runs it again")
	require.Equal(t, signals.StatusFailed, run.Nodes[1].Status)
	require.Equal(t, neverRanText, run.Nodes[1].Error)
	loadNotRun(&run) // the reason is not carried: a run loaded reads it from the trace
	require.True(t, run.Nodes[0].StoppedBeforeRun() && run.Nodes[1].StoppedBeforeRun(), "the edit sees both as not finished, loaded again too")
}

// A decision the old generation accepted during the switch is carried:
// the next generation takes it at once, nobody has to approve again.
func TestADecisionAcceptedDuringTheSwitchIsCarried(t *testing.T) {
	h := newHarness(t, approvalSpec(), waitingReplies(), echoTool)
	h.suggestWhileWaiting()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "book"})
	next := continuedInput(t, h)
	next.Continued.Resume.Waiting.Decisions = map[string]*signals.ApproveRequest{
		"n3": {CallID: "n3", Decision: "modify", Args: json.RawMessage(`{"seat": "14C"}`), Audit: signals.Audit{By: "alice"}},
	}

	h2 := newHarness(t, approvalSpec(), waitingReplies()[1:], echoTool)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	require.Len(t, h2.toolReqs, 1)
	require.Equal(t, "b", h2.toolReqs[0].Tool.Name)
	require.JSONEq(t, `{"seat": "14C"}`, string(h2.toolReqs[0].Args), "the carried decision's arguments")
}

// An approval signalled while the run was switching reaches the next
// generation before its step resumes: it lands, it is not refused.
func TestAnApprovalBetweenGenerationsLands(t *testing.T) {
	h := newHarness(t, approvalSpec(), waitingReplies(), echoTool)
	h.suggestWhileWaiting()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "book"})
	next := continuedInput(t, h)

	h2 := newHarness(t, approvalSpec(), waitingReplies()[1:], echoTool)
	h2.env.RegisterDelayedCallback(func() {
		h2.env.SignalWorkflow(signals.Approve, map[string]any{"call_id": "n3", "decision": "approve", "by": "alice"})
	}, 0)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	require.Equal(t, []string{"b"}, toolNamesOf(h2.toolReqs))
	for _, n := range nodesByKind(h2.trace(), signals.KindHuman) {
		require.NotEqual(t, signals.StatusSkipped, n.Status, "no signal was ignored: %s", n.Error)
	}
}

// carriedHumanNode is the human node a run that continued as new while
// waiting carried: still pending, its wait's start kept.
func carriedHumanNode(t *testing.T, run *Run) string {
	t.Helper()
	require.NotNil(t, run.Resume)
	require.NotNil(t, run.Resume.Waiting)
	human := run.Resume.Waiting.Human
	require.NotEmpty(t, human)
	require.Equal(t, signals.StatusPending, statuses(run)[human])
	return human
}

// carriedBudgetNode is the budget node a run that continued as new while
// waiting at the budget rung carried: still pending, its wait's start
// kept, so its deadline.
func carriedBudgetNode(t *testing.T, run *Run) string {
	t.Helper()
	require.NotNil(t, run.Resume)
	require.NotNil(t, run.Resume.Waiting.Budget)
	node := run.Resume.Waiting.Budget.Node
	require.Contains(t, run.Resume.Waiting.Since, node, "the wait keeps its start, so its deadline")
	require.Equal(t, signals.StatusPending, statuses(run)[node])
	return node
}
