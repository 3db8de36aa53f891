package workflows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

// An edit of a node with no checkpoint (older than the latest 64, or
// carried by a version before checkpoints) starts the loop escape afresh;
// the escalations and output failures of the steps it invalidated are
// undone with them.
func TestAnEditWithoutACheckpointUndoesTheEscalationsItInvalidates(t *testing.T) {
	// Generation 0: the loop escalates twice (retry, then a person), and
	// hold waits; a thought edit of hold's request continues it as new.
	var got updateResult
	h := newHarness(t, pairSpec(), pairReplies(), echoTool)
	var replied updateResult
	h.reply(10*time.Minute, "go on", &replied)
	h.edit(30*time.Minute, signals.EditRequest{NodeID: "n21", Output: json.RawMessage(`"hold it"`)}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, got.rejected)
	require.NoError(t, got.err)
	next := continuedInput(t, h)
	require.Len(t, next.Continued.Escalations, 2)
	// As a run carried by the released code: no checkpoints.
	for i := range next.Continued.Nodes {
		next.Continued.Nodes[i].Checkpoint = nil
	}
	// Generation 1: an edit of the first step's call, before both loops.
	h1 := newHarness(t, pairSpec(), pairReplies()[7:], echoTool)
	var got1 updateResult
	h1.edit(30*time.Minute, signals.EditRequest{NodeID: "n5", Output: json.RawMessage(`{"q": "c again"}`)}, &got1)
	h1.env.SetContinuedExecutionRunID("the-previous-run")
	h1.env.ExecuteWorkflow(AgentWorkflow, next)
	require.NoError(t, got1.rejected)
	require.NoError(t, got1.err)
	after := continuedInput(t, h1).Continued
	require.Equal(t, 1, after.Step)
	for _, e := range after.Escalations {
		require.NotEqual(t, signals.StatusInvalidated, after.node(e.At).Status, "escalation %s at %s was undone by the edit", e.Action, e.At)
	}
}
