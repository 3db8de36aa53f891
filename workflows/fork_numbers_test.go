package workflows

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
)

// State holds numbers exact (numbers.go); a fork rebuilds State from the
// calls it keeps, and must keep them exact too.
func TestAForkKeepsStateNumbersExact(t *testing.T) {
	big := `{"id": 123456789012345678901234567890, "price": 0.1}`
	src := newHarness(t, editSpec(), []activities.ModelReply{
		{Content: "look", ToolCalls: []activities.ToolCall{call("ka", "a", `{"q": 1, "_outputPath": "†state.x"}`)}},
		{Content: "done"},
	}, func(req activities.ToolRequest) (json.RawMessage, error) { return json.RawMessage(big), nil })
	_, err := src.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	v, err := src.env.QueryWorkflow(signals.QueryRun)
	require.NoError(t, err)
	var packed []byte
	require.NoError(t, v.Get(&packed))

	fork := newHarness(t, editSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("kb", "b", `{"id": "†state.x.id", "price": "†state.x.price"}`)}},
		{Content: "forked"},
	}, echoTool)
	fork.env.OnActivity(acts.ReadRun, mock.Anything, "source-1").Return(packed, nil)
	_, err = fork.run(AgentInput{From: &ForkFrom{WorkflowID: "source-1", NodeID: "n2",
		Edit: json.RawMessage(`{"output": "look again"}`)}})
	require.NoError(t, err)
	require.Len(t, fork.toolReqs, 1)
	require.JSONEq(t, `{"id": 123456789012345678901234567890, "price": 0.1}`, string(fork.toolReqs[0].Args))
	require.Contains(t, string(fork.toolReqs[0].Args), "123456789012345678901234567890", "not a float64's approximation")
}
