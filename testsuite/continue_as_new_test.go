package testsuite

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A long run continues as new when Temporal suggests it, carrying the
// whole run: State, the trace with its node ids, the conversation (the
// scripted model counts its turns from it) and the step counter.
func TestLongRunContinuesAsNewWithTheWholeRun(t *testing.T) {
	t.Parallel()
	const turns = 30
	cfg := `
model: { base_url: "{{MODEL}}", name: counter }
tools:
  - { name: echo, builtin: echo, parameters: { type: object } }
agents:
  - { name: counter, instructions: Count., tools: [echo], policies: { max_steps: 100 } }
`
	counter := func(req openaiRequest) scriptedmodel.Turn {
		n := scriptedmodel.AssistantTurns(req)
		if n < turns {
			return scriptedmodel.CallTurn("echo", map[string]any{"i": n, "_outputPath": "†state.last"})
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"last": "†state.last.i", "turns": n})
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"counter": counter})
	run := s.start(workflows.AgentInput{Agent: "counter", Task: "count"})
	firstRunID := run.GetRunID() // run follows the chain once it is waited on
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf(`{"last": %d, "turns": %d}`, turns-1, turns), string(res.Output))
	require.Equal(t, turns+1, res.Steps)
	require.GreaterOrEqual(t, res.Generation, 1, "the run crossed at least one continue-as-new")
	require.Equal(t, turns+1, s.model.RequestCount())

	// The latest run answers for the whole trace, ids unique and in order.
	latest := s.client.GetWorkflow(context.Background(), run.GetID(), "")
	tr := s.trace(latest)
	require.Equal(t, res.Generation, tr.Generation)
	seen := map[string]bool{}
	for i, n := range tr.Nodes {
		require.Equal(t, fmt.Sprintf("n%d", i+1), n.ID)
		require.False(t, seen[n.ID])
		seen[n.ID] = true
	}
	require.Equal(t, signals.KindTask, tr.Nodes[0].Kind)
	require.Len(t, nodesOf(tr, signals.KindRequest), turns+1)
	recordAndReplay(t, latest, "continued_as_new_last_generation")

	// The first run of the chain ended by continuing as new.
	desc, err := s.client.DescribeWorkflowExecution(context.Background(), run.GetID(), firstRunID)
	require.NoError(t, err)
	require.Equal(t, enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, desc.WorkflowExecutionInfo.Status)
}
