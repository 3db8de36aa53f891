package workflows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
)

// A write that failed after it started (a timeout: it may have acted) goes
// again, after an edit, with the Idempotency-Key of that try (its call
// id), so a tool that honours the key acts once. Tried and failed twice,
// across two edits, the third try must still carry the first try's key:
// the second try used it, not its own.
func TestAWriteTriedTwiceKeepsTheFirstTrysKey(t *testing.T) {
	timeout := func(req activities.ToolRequest) (json.RawMessage, error) {
		if req.Tool.Name == "w" {
			return nil, temporal.NewNonRetryableApplicationError("tool w: timed out", "timeout", nil)
		}
		return req.Args, nil
	}
	gen := func(replies []activities.ModelReply, in AgentInput, edit signals.EditRequest) (*harness, AgentInput) {
		h := newHarness(t, editSpec(), replies, timeout)
		var got updateResult
		h.edit(30*time.Minute, edit, &got)
		if in.Continued != nil {
			h.env.SetContinuedExecutionRunID("the-previous-run")
		}
		h.env.ExecuteWorkflow(AgentWorkflow, in)
		require.NoError(t, got.rejected)
		require.NoError(t, got.err)
		return h, continuedInput(t, h)
	}
	// Generation 0: the look-up n3, the write n5 (times out), hold n7.
	h0, in1 := gen(lookupWriteConfirm(), AgentInput{Agent: "agent", Task: "t"},
		signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"q": "again"}`)})
	require.Equal(t, "n5", h0.toolReqs[1].CallID)
	// Generation 1: the same write, tried again (times out), then hold.
	again := []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k5", "w", `{"order": 7}`)}},
		{ToolCalls: []activities.ToolCall{call("k6", "hold", `{}`)}},
	}
	h1, in2 := gen(again, in1, signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"q": "once more"}`)})
	require.Equal(t, []string{"w"}, toolNamesOf(h1.toolReqs))
	require.Equal(t, "n5", h1.toolReqs[0].CallID, "the second try takes the first's key")
	// Generation 2: the third try.
	h2 := newHarness(t, editSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k7", "w", `{"order": 7}`)}},
		{Content: "done"},
	}, timeout)
	_, _ = h2.run(in2)
	require.Equal(t, []string{"w"}, toolNamesOf(h2.toolReqs))
	require.Equal(t, "n5", h2.toolReqs[0].CallID, "the third try takes the key the first two had")
}
