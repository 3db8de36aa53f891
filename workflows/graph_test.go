package workflows

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// rollbackGraph: S -> A -> B -> A is a cycle in which B always fails; the
// way out is S -> X -> E, which the first edge from S hides.
func rollbackGraph() *config.Resolved {
	spec := echoSpec()
	spec.Agent.Policies.Loop = config.LoopPolicy{Window: 16, Repeats: 2}
	spec.Agent.Policies.Escalation = []string{"rollback", "stop"}
	spec.Agent.Graph = &config.Graph{
		Start: "S",
		Nodes: map[string]config.GraphNode{
			"S": {Tool: "a", Args: map[string]any{"at": "S"}},
			"A": {Tool: "a", Args: map[string]any{"at": "A"}},
			"B": {Tool: "b", Args: map[string]any{"at": "B"}},
			"X": {Tool: "c", Args: map[string]any{"at": "X"}, OutputPath: "†state.x"},
			"E": {End: true, Output: "†state.x.at"},
		},
		Edges: []config.GraphEdge{
			{From: "S", To: "A"}, {From: "S", To: "X"},
			{From: "A", To: "B"}, {From: "B", To: "A"},
			{From: "X", To: "E"},
		},
	}
	return spec
}

func bFails(req activities.ToolRequest) (json.RawMessage, error) {
	if req.Tool.Name == "b" {
		return nil, temporal.NewNonRetryableApplicationError("tool b: HTTP 409: no", "persistent", nil)
	}
	return req.Args, nil
}

func TestGraphRollbackExcludesTheEdgeIntoTheLoop(t *testing.T) {
	h := newHarness(t, rollbackGraph(), nil, bFails)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "walk"})
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, h.env.GetWorkflowError(), &can)
	var next AgentInput
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	run := next.Continued
	require.Equal(t, &resumePoint{Node: "S", OK: true}, run.ResumeFrom, "back to the node before the loop")
	require.Equal(t, []string{"S->A"}, run.ExcludedEdges)
	require.Equal(t, []string{"rollback"}, actions(run.Escalations))

	// The next generation takes the other way and reaches the end.
	h2 := newHarness(t, rollbackGraph(), nil, bFails)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.JSONEq(t, `"X"`, string(res.Output))
	require.Equal(t, 1, res.Generation)
	var visited []string
	for _, n := range h2.trace().Nodes {
		if n.Kind == signals.KindCall && n.Status != signals.StatusInvalidated {
			visited = append(visited, n.GraphNode)
		}
	}
	require.Equal(t, []string{"S", "X"}, visited, "S is not run again after the rollback: the walk goes on from its edges")
}

func TestGraphEdgeConditionsSeeOkErrorStateAndVisits(t *testing.T) {
	spec := echoSpec()
	spec.Agent.Graph = &config.Graph{
		Start: "A",
		Nodes: map[string]config.GraphNode{
			"A": {Tool: "b", Args: map[string]any{"n": 1}},
			"B": {Tool: "a", Args: map[string]any{"n": 2}, OutputPath: "†state.b"},
			"E": {End: true},
		},
		Edges: []config.GraphEdge{
			{From: "A", To: "B", When: `!ok && error contains "409" && visits["A"] == 1`},
			{From: "A", To: "E"},
			{From: "B", To: "E", When: "state.b.n == 2"},
		},
	}
	h := newHarness(t, spec, nil, bFails)
	res, err := h.run(AgentInput{Agent: "agent", Task: "walk"})
	require.NoError(t, err)
	require.JSONEq(t, `{"b":{"n":2}}`, string(res.Output), "an end node without output answers the State")
	require.Equal(t, 3, res.Steps, "node visits count as steps")
}
