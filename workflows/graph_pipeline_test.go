package workflows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// A graph's tool node walks the same pipeline as a model's call: these
// tests give each stage a graph node to act on.

// oneNodeGraph is A (a call of tool with args) -> E, ending with State's x.
func oneNodeGraph(tool string, args map[string]any) *config.Graph {
	return &config.Graph{
		Start: "A",
		Nodes: map[string]config.GraphNode{
			"A": {Tool: tool, Args: args, OutputPath: "†state.x"},
			"E": {End: true, Output: "†state.x"},
		},
		Edges: []config.GraphEdge{{From: "A", To: "E", When: "ok"}, {From: "A", To: "A"}},
	}
}

func graphCalls(tr signals.Trace) []signals.Node { return nodesByKind(tr, signals.KindCall) }

// Validate and repair: a node's date in the wrong format is repaired by
// rule before the tool runs, with a repair node in the trace.
func TestGraphToolNodeArgumentsAreRepairedByRule(t *testing.T) {
	spec := echoSpec()
	spec.Tools = append(spec.Tools, config.Tool{Name: "dated", Builtin: "echo", Parameters: map[string]any{
		"type": "object", "required": []any{"date"},
		"properties": map[string]any{"date": map[string]any{"type": "string", "format": "date"}},
	}})
	spec.Agent.Graph = oneNodeGraph("dated", map[string]any{"date": "Jan 15, 2024"})
	h := newHarness(t, spec, nil, okEcho)
	res, err := h.run(AgentInput{Agent: "agent", Task: "walk"})
	require.NoError(t, err)
	require.JSONEq(t, `{"date":"2024-01-15"}`, string(res.Output))
	require.Len(t, h.toolReqs, 1)
	require.JSONEq(t, `{"date":"2024-01-15"}`, string(h.toolReqs[0].Args))
	require.Len(t, nodesByKind(h.trace(), signals.KindRepair), 1)
	require.Empty(t, h.repairReqs, "a rule repair needs no model")
}

// Approval: the node's call waits for a person, who changes its arguments.
func TestGraphToolNodeWaitsForApproval(t *testing.T) {
	spec := approvalSpec()
	spec.Agent.Graph = oneNodeGraph("b", map[string]any{"amount": 10})
	h := newHarness(t, spec, nil, okEcho)
	var got updateResult
	// The call of A is n2 (task n1).
	h.approve(time.Minute, signals.ApproveRequest{CallID: "n2", Decision: signals.DecisionModify, Args: json.RawMessage(`{"amount": 7}`)}, &got)
	res, err := h.run(AgentInput{Agent: "agent", Task: "walk"})
	require.NoError(t, err)
	require.NoError(t, got.rejected)
	require.JSONEq(t, `{"amount":7}`, string(res.Output))
	require.Len(t, h.toolReqs, 1)
	require.Len(t, nodesByKind(h.trace(), signals.KindApproval), 1)
}

// Block: an exact call the loop ladder blocked fails without running, in
// a graph as in a free-form run.
func TestGraphToolNodeBlockedCallDoesNotRun(t *testing.T) {
	spec := echoSpec()
	spec.Agent.Policies.MaxSteps = 2
	spec.Agent.Graph = oneNodeGraph("a", map[string]any{"q": 1})
	run := startedRun(spec)
	run.Blocked = []string{policies.BlockKey("a", json.RawMessage(`{"q":1}`), nil)}
	h := newHarness(t, spec, nil, okEcho)
	_, err := h.run(AgentInput{Continued: run})
	rep := stopReport(t, err)
	require.Contains(t, rep.Reason, "max_steps (2)")
	require.Empty(t, h.toolReqs, "a blocked call never reaches its tool")
	for _, c := range graphCalls(h.trace()) {
		require.Contains(t, c.Error, "blocked: this exact call of a")
	}
}

// Breaker: after breaker.failures failures in a row the node's tool is not
// called again until its cooldown passes.
func TestGraphToolNodeBreakerOpens(t *testing.T) {
	spec := echoSpec()
	spec.Agent.Policies.MaxSteps = 4
	spec.Agent.Policies.Breaker = config.BreakerPolicy{Failures: 2, Cooldown: config.Duration(time.Hour)}
	spec.Agent.Policies.Loop = config.LoopPolicy{Window: 64, Repeats: 10}
	spec.Agent.Graph = oneNodeGraph("b", map[string]any{"q": 1})
	h := newHarness(t, spec, nil, bFailsTransiently)
	_, err := h.run(AgentInput{Agent: "agent", Task: "walk"})
	stopReport(t, err)
	require.Len(t, h.toolReqs, 2, "two failures open the breaker")
	calls := graphCalls(h.trace())
	require.Len(t, calls, 4)
	require.Contains(t, calls[2].Error, "circuit open: b failed 2 times in a row")
	require.Contains(t, calls[3].Error, "circuit open")
}

// Fallback: with b's breaker open, the node's call is served by b's
// fallback, and the walk goes on.
func TestGraphToolNodeUsesTheFallback(t *testing.T) {
	spec := echoSpec()
	for i := range spec.Tools {
		if spec.Tools[i].Name == "b" {
			spec.Tools[i].Fallback = "c"
		}
	}
	spec.Agent.Policies.Breaker = config.BreakerPolicy{Failures: 2, Cooldown: config.Duration(time.Hour)}
	spec.Agent.Policies.Loop = config.LoopPolicy{Window: 64, Repeats: 10}
	spec.Agent.Graph = oneNodeGraph("b", map[string]any{"q": 1})
	h := newHarness(t, spec, nil, bFailsTransiently)
	res, err := h.run(AgentInput{Agent: "agent", Task: "walk"})
	require.NoError(t, err)
	require.JSONEq(t, `{"q":1}`, string(res.Output))
	var tools []string
	for _, r := range h.toolReqs {
		tools = append(tools, r.Tool.Name)
	}
	require.Equal(t, []string{"b", "b", "c"}, tools)
}

// okEcho answers a call with its arguments.
func okEcho(req activities.ToolRequest) (json.RawMessage, error) { return req.Args, nil }

// bFailsTransiently: b's server is down (non-retryable here, so each visit
// is one failure); the other tools echo.
func bFailsTransiently(req activities.ToolRequest) (json.RawMessage, error) {
	if req.Tool.Name == "b" {
		return nil, temporal.NewNonRetryableApplicationError("tool b: HTTP 503: down", string(policies.Persistent), nil)
	}
	return req.Args, nil
}

// startedRun is a run as continue-as-new would carry it, just started.
func startedRun(spec *config.Resolved) *Run {
	return &Run{
		Spec:     spec,
		Progress: Progress{State: map[string]any{}, HandoffPath: []string{}, Escalations: []Escalation{}},
		Trace: Trace{NextID: 1, Frontier: []string{"n1"},
			Nodes: []Node{{Node: signals.Node{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted, Parents: []string{}, Agent: spec.Agent.Name}}}},
	}
}

// fallbackApprovalSpec: a one-node graph calling b with args, whose
// breaker opens at its first failure; its fallback c's approval is
// approval.
func fallbackApprovalSpec(approval config.Approval, args map[string]any) *config.Resolved {
	spec := echoSpec()
	for i := range spec.Tools {
		switch spec.Tools[i].Name {
		case "b":
			spec.Tools[i].Fallback = "c"
		case "c":
			spec.Tools[i].Approval = approval
		}
	}
	spec.Agent.Policies.HumanTimeout = config.Duration(time.Hour)
	spec.Agent.Policies.Breaker = config.BreakerPolicy{Failures: 1, Cooldown: config.Duration(time.Hour)}
	spec.Agent.Policies.Loop = config.LoopPolicy{Window: 64, Repeats: 10}
	spec.Agent.Graph = oneNodeGraph("b", args)
	return spec
}

// A fallback that needs an approval of its own asks for it before it
// stands in: the pending approval names the fallback, and once approved
// the fallback runs.
func TestAFallbackThatNeedsApprovalAsksForIt(t *testing.T) {
	h := newHarness(t, fallbackApprovalSpec(config.ApprovalAlways, map[string]any{"q": 1}), nil, bFailsTransiently)
	var pending signals.Status
	h.env.RegisterDelayedCallback(func() { pending = h.status() }, 30*time.Second)
	var got updateResult
	// Visit 1 is call n2 (b fails, its breaker opens); visit 2 is n3.
	h.approve(time.Minute, signals.ApproveRequest{CallID: "n3", Decision: signals.DecisionApprove}, &got)
	res, err := h.run(AgentInput{Agent: "agent", Task: "walk"})
	require.NoError(t, err)
	require.NoError(t, got.rejected)
	require.JSONEq(t, `{"q":1}`, string(res.Output))
	require.Len(t, pending.PendingApprovals, 1)
	require.Equal(t, "c", pending.PendingApprovals[0].Tool, "the approval asked for is the fallback's")
	var tools []string
	for _, r := range h.toolReqs {
		tools = append(tools, r.Tool.Name)
	}
	require.Equal(t, []string{"b", "c"}, tools)
}
