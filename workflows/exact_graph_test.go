package workflows

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

// A graph: the input's id is written to State by one node, read by the
// next and answered by the end node; the edge compares it, in State and in
// the input, as a number.
func TestGraphNumbersStayExactToTheEndNode(t *testing.T) {
	spec := echoSpec()
	spec.Agent.Graph = &config.Graph{
		Start: "A",
		Nodes: map[string]config.GraphNode{
			"A": {Tool: "a", Args: map[string]any{"id": "†input.id", "big": "†input.big", "frac": "†input.frac"}, OutputPath: "†state.order"},
			"B": {Tool: "b", Args: map[string]any{"id": "†state.order.id"}, OutputPath: "†state.booked"},
			"E": {End: true, Output: "†state.order"},
			"S": {End: true, Output: "†state.order.big"},
		},
		Edges: []config.GraphEdge{
			{From: "A", To: "B", When: "state.order.id == " + exactID + ` && string(state.order.big) == "` + exactBig + `" && input.id == ` + exactID + ` && input.id != 9007199254740992`},
			{From: "A", To: "S"},
			{From: "B", To: "E"},
		},
	}
	h := newHarness(t, spec, nil, okEcho)
	res, err := h.run(AgentInput{Agent: "agent", Task: "walk", Input: json.RawMessage(exactDoc)})
	require.NoError(t, err)
	require.Len(t, h.toolReqs, 2, "the edge to B held")
	require.JSONEq(t, `{"id":`+exactID+`}`, string(h.toolReqs[1].Args))
	require.JSONEq(t, exactDoc, string(res.Output))
	requireExact(t, res.Output, "the end node's output")
}
