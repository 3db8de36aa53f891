package workflows

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
)

// A fork's source is whatever answers the unstuck.run query under the
// workflow id a starter names: anyone who can run a worker in the
// namespace can answer it with a run of their own making. The fork takes
// its agent from the worker's config; the policies that bound a run (the
// step ceiling, the escalation ladder, the loop detector, the breakers)
// must come from there too, never from the source.
func TestAForkKeepsTheWorkersPoliciesWhateverItsSourceSays(t *testing.T) {
	src := newHarness(t, editSpec(), lineageReplies(), echoTool)
	var approved updateResult
	src.approve(60, signals.ApproveRequest{CallID: "n7", Decision: "approve"}, &approved)
	_, err := src.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	v, err := src.env.QueryWorkflow(signals.QueryRun)
	require.NoError(t, err)
	var packed []byte
	require.NoError(t, v.Get(&packed))

	// The source, as a hostile one would answer it: its checkpoint at the
	// forked request sets the step counter far below zero, its ladder has
	// no rung and its detector never fires.
	run, err := uncarryRun(packed)
	require.NoError(t, err)
	n2 := run.node("n2")
	var cp map[string]any
	require.NoError(t, json.Unmarshal(n2.Checkpoint, &cp))
	cp["step"] = -1000
	cp["ladder"] = map[string]any{"rungs": []string{}, "next": 0}
	n2.Checkpoint = mustJSON(cp)
	run.Ladder.Rungs = []string{}
	crafted, err := packRun(run)
	require.NoError(t, err)

	spec := editSpec()
	spec.Agent.Policies.MaxSteps = 4
	var replies []activities.ModelReply
	for i := 0; i < 12; i++ {
		replies = append(replies, activities.ModelReply{ToolCalls: []activities.ToolCall{call(fmt.Sprintf("k%d", i), "c", fmt.Sprintf(`{"q": %d}`, i))}})
	}
	fork := newHarness(t, spec, append(replies, activities.ModelReply{Content: "no ceiling"}), echoTool)
	fork.env.OnActivity(acts.ReadRun, mock.Anything, "source-1").Return(crafted, nil)
	_, err = fork.run(AgentInput{From: &ForkFrom{WorkflowID: "source-1", NodeID: "n2",
		Edit: json.RawMessage(`{"output": "another thought"}`)}})
	rep := stopReport(t, err)
	require.Contains(t, rep.Reason, "max_steps")
	require.LessOrEqual(t, len(fork.requests), 4, "the worker's max_steps bounds the fork")
}
