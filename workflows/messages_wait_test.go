package workflows

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// startingEnv runs AgentWorkflow whose start (resolving the agent, or
// verifying the state it carried) takes startTakes, then gives spec or
// fails with startErr.
func startingEnv(spec *config.Resolved, startTakes time.Duration, startErr error) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(AgentWorkflow)
	env.RegisterActivity(&activities.Activities{})
	resolved := spec
	if startErr != nil {
		resolved = nil
	}
	env.OnActivity(acts.ResolveAgent, mock.Anything, mock.Anything).After(startTakes).Return(resolved, startErr)
	env.OnActivity(acts.VerifyCarried, mock.Anything, mock.Anything).After(startTakes).Return(startErr)
	env.OnActivity(acts.CallModel, mock.Anything, mock.Anything).Return(&activities.ModelReply{ReplyID: "r1", Content: "done"}, nil)
	return env
}

// sendAt sends update name with req after a while, its outcome in got.
func sendAt(env *testsuite.TestWorkflowEnvironment, after time.Duration, name string, req any, got *updateResult) {
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(name, name+"-"+after.String(), &updateCallback{got: got}, req)
	}, after)
}

// Every update that needs the run's state, sent while the run resolves its
// agent, is taken once the run has it: none is refused as too early. The
// reply completes the human node it waited for; the others are answered
// on their merits, by the run's state.
func TestUpdatesWhileTheRunStartsWaitForIt(t *testing.T) {
	env := startingEnv(humanGraph(), time.Minute, nil)
	var reply, approve, edit, handoff, budget updateResult
	sendAt(env, time.Second, signals.Reply, signals.ReplyRequest{Text: "ok", Output: json.RawMessage(`{"done":true}`)}, &reply)
	sendAt(env, time.Second, signals.Approve, signals.ApproveRequest{CallID: "n9", Decision: signals.DecisionApprove}, &approve)
	sendAt(env, time.Second, signals.Edit, signals.EditRequest{NodeID: "n9", Output: json.RawMessage(`1`)}, &edit)
	sendAt(env, time.Second, signals.Handoff, signals.HandoffRequest{To: "other"}, &handoff)
	sendAt(env, time.Second, signals.Budget, signals.BudgetRequest{Stop: true}, &budget)
	env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "ask"})
	require.NoError(t, env.GetWorkflowError())
	var res AgentResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.JSONEq(t, `{"done":true}`, string(res.Output))

	require.NoError(t, reply.rejected)
	require.True(t, reply.completed)
	require.NoError(t, reply.err)
	for name, got := range map[string]updateResult{"approve": approve, "edit": edit, "handoff": handoff, "budget": budget} {
		require.NoError(t, got.rejected, name)
		require.True(t, got.completed, name)
		require.ErrorContains(t, got.err, name+": ", name)
		require.NotContains(t, got.err.Error(), "starting", name)
	}
	require.ErrorContains(t, approve.err, `approve: "n9" is not a call of this run`)
	require.ErrorContains(t, budget.err, "budget:")
}

// A flood of switches: a conversation continues as new five times, and
// each generation is sent a message while it verifies the state it
// carried. Every message waits for its generation, joins the conversation
// and is carried on, in the order sent.
func TestMessagesThroughAFloodOfSwitches(t *testing.T) {
	spec := chatSpec(config.DoubleTextEnqueue)
	first := newHarness(t, spec, nil, okEcho)
	first.env.RegisterDelayedCallback(func() {
		first.env.SetContinueAsNewSuggested(true)
		first.env.SignalWorkflow(signals.Reply, map[string]any{"text": "wake up"})
	}, time.Minute)
	_, _ = first.run(AgentInput{Agent: "travel", Task: "message 0"})
	next := continuedInput(t, first)
	const switches = 5
	for i := 1; i <= switches; i++ {
		env := startingEnv(spec, time.Minute, nil)
		env.SetContinuedExecutionRunID("the-previous-run")
		var msg updateResult
		sendAt(env, time.Second, signals.Message, signals.MessageRequest{Text: fmt.Sprint("message ", i)}, &msg)
		env.RegisterDelayedCallback(func() {
			env.SetContinueAsNewSuggested(true)
			env.SignalWorkflow(signals.Reply, map[string]any{"text": "wake up"})
		}, 10*time.Minute)
		env.ExecuteWorkflow(AgentWorkflow, next)
		require.NoError(t, msg.rejected, "message %d", i)
		require.NoError(t, msg.err, "message %d", i)
		require.Equal(t, signals.MessageResult{Queued: 1}, msg.result, "message %d", i)
		next = continuedFrom(t, env)
	}
	var messages []string
	for _, n := range next.Continued.Nodes {
		if n.Kind == signals.KindTask && n.Status == signals.StatusCompleted {
			messages = append(messages, string(n.Args))
		}
	}
	require.Len(t, messages, switches+1)
	for i, m := range messages {
		require.Contains(t, m, fmt.Sprintf(`"message %d"`, i))
	}
}

// An update that waited for a run that then failed to start is answered
// with why it failed, and the run fails as it would have.
func TestAnUpdateThatWaitedGetsTheStartFailure(t *testing.T) {
	failed := temporal.NewNonRetryableApplicationError(`unknown agent "concierg"`, activities.UnknownAgentError, nil)
	env := startingEnv(nil, time.Minute, failed)
	var msg updateResult
	sendAt(env, time.Second, signals.Message, signals.MessageRequest{Text: "hi"}, &msg)
	env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "concierg", Task: "t"})
	require.ErrorContains(t, env.GetWorkflowError(), `unknown agent "concierg"`)
	require.NoError(t, msg.rejected)
	require.True(t, msg.completed)
	require.ErrorContains(t, msg.err, `message: the run failed at its start: `)
	require.ErrorContains(t, msg.err, `unknown agent "concierg"`)
}
