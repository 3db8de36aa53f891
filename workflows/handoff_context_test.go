package workflows

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

// The handoff context is built from the trace: what the run did that
// still stands (nothing an edit invalidated), its State and the path.
func TestHandoffContextCarriesWhatStands(t *testing.T) {
	h := newHarness(t, editSpec(), lineageReplies(), echoTool)
	var got updateResult
	h.edit(time.Minute, signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"v": "new"}`)}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "find it", Input: json.RawMessage(`{"user": "u-7"}`)})
	require.NoError(t, got.rejected)
	run := continuedInput(t, h).Continued

	hc := newHandoffContext(run, "wf-1", "out_of_scope", "needs refunds", "refund order 7", true)
	require.Equal(t, HandoffContextVersion, hc.Version)
	require.Equal(t, "wf-1", hc.Session)
	require.Equal(t, "u-7", hc.User)
	require.Equal(t, "find it", hc.InitialQuery)
	require.Equal(t, "agent", hc.SourceAgent)
	require.Equal(t, []string{"agent"}, hc.HandoffPath)
	require.Len(t, hc.ReasoningTrace, 1, "the request an edit invalidated is not carried")
	require.Equal(t, []string{"a", "b", "c"}, hc.ReasoningTrace[0].Calls)
	var tools []string
	for _, r := range hc.ToolRecords {
		tools = append(tools, r.Node+":"+r.Tool)
	}
	require.Equal(t, []string{"n3:a", "n5:c"}, tools, "b read the edited output and was invalidated; hold too")
	require.JSONEq(t, `{"v":"new"}`, string(hc.ToolRecords[0].Output))
	require.Equal(t, "new", hc.State["x"].(map[string]any)["v"])
	require.Equal(t, "user", hc.Conversation[0].Role, "the source's instructions are not carried")
	require.Contains(t, hc.Conversation[0].Content, "find it")

	brief := hc.brief()
	for _, want := range []string{"handed over to you by agent agent (reason: out_of_scope)", "Summary: needs refunds", "Suggested next action: refund order 7", "Handoff path: agent."} {
		require.True(t, strings.Contains(brief, want), "%q in %q", want, brief)
	}
}

// A long conversation is carried as a bounded digest; a large tool result
// as a pointer to its node.
func TestHandoffContextIsBounded(t *testing.T) {
	run := bigRun(300, strings.Repeat("a result that repeats ", 400))
	hc := newHandoffContext(run, "wf", "other", "", "", true)
	size := 0
	for _, m := range hc.Conversation {
		size += messageSize(m)
	}
	require.LessOrEqual(t, size, maxHandoffConversation+64<<10, "the digest keeps to its budget (markers aside)")
	for _, r := range hc.ToolRecords {
		require.LessOrEqual(t, len(r.Output), maxToolRecordOutput)
	}
}
