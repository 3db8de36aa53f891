package workflows

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// fallbackRun runs testSpec's agent with fallbacks b (the primary's
// provider) and c (another), the model activity answering with fail for
// the places listed, and answers the places asked in order and the trace.
func fallbackRun(t *testing.T, failing map[int]error, before ...string) ([]int, signals.Trace, error) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(AgentWorkflow)
	env.RegisterActivity(&activities.Activities{})
	spec := testSpec()
	spec.Model.Provider = "p"
	spec.Model.Fallbacks = []config.ModelFallback{{Name: "b", Provider: "p"}, {Name: "c", Provider: "q"}}
	env.OnActivity(acts.ResolveAgent, mock.Anything, mock.Anything).Return(spec, nil)
	var mu sync.Mutex
	var asked []int
	env.OnActivity(acts.CallModel, mock.Anything, mock.Anything).Return(
		func(_ context.Context, req activities.ModelRequest) (*activities.ModelReply, error) {
			mu.Lock()
			asked = append(asked, req.Fallback)
			mu.Unlock()
			if err := failing[req.Fallback]; err != nil {
				return nil, err
			}
			return &activities.ModelReply{ReplyID: "r", Content: "done"}, nil
		})
	for _, id := range before {
		env.OnGetVersion(versionRelease, workflow.DefaultVersion, releaseAll).Return(workflow.DefaultVersion)
		env.OnGetVersion(id, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	}
	env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "travel", Task: "Book"})
	var tr signals.Trace
	if v, err := env.QueryWorkflow(signals.QueryTrace); err == nil {
		_ = v.Get(&tr)
	}
	return asked, tr, env.GetWorkflowError()
}

var (
	unavailable = temporal.NewApplicationError(`model "a": HTTP 503: overloaded`, activities.ModelUnavailableError)
	badKey      = temporal.NewNonRetryableApplicationError(`model "a": HTTP 401: bad key`, activities.ModelRejectedError, nil)
)

func TestAnUnavailableModelFallsBackOnceItsRetriesAreSpent(t *testing.T) {
	asked, tr, err := fallbackRun(t, map[int]error{0: unavailable})
	require.NoError(t, err)
	require.Equal(t, []int{0, 0, 0, 0, 0, 0, 0, 0, 1}, asked, "eight attempts of the model, then its first fallback")
	esc := nodesByKind(tr, signals.KindEscalation)
	require.Len(t, esc, 1)
	require.JSONEq(t, `{"action": "model_fallback", "from": "scripted:test", "to": "b"}`, string(esc[0].Args))
	var why string
	require.NoError(t, json.Unmarshal(esc[0].Output, &why))
	require.Contains(t, why, "HTTP 503: overloaded")
}

func TestARefusedModelFallsBackToAnotherProvider(t *testing.T) {
	asked, tr, err := fallbackRun(t, map[int]error{0: badKey})
	require.NoError(t, err)
	require.Equal(t, []int{0, 2}, asked, "b shares the key's provider: c")
	require.JSONEq(t, `{"action": "model_fallback", "from": "scripted:test", "to": "c"}`, string(nodesByKind(tr, signals.KindEscalation)[0].Args))
}

func TestWhenEveryModelFailsTheRunStops(t *testing.T) {
	asked, _, err := fallbackRun(t, map[int]error{0: badKey, 2: badKey})
	rep := stopReport(t, err)
	require.Contains(t, rep.LastError, "bad key")
	require.Equal(t, []int{0, 2}, asked)
}

func TestRunsOfAnEarlierVersionDoNotFallBack(t *testing.T) {
	asked, _, err := fallbackRun(t, map[int]error{0: badKey}, versionModelFallback)
	stopReport(t, err)
	require.Equal(t, []int{0}, asked)
}

// onFallbackAfter runs an agent whose model is refused once: its request
// goes to fallback c, whose reply asks for a call a person approves 45 s
// later; it answers where the request after that went (0: the model).
func onFallbackAfter(t *testing.T, fallbackCooldown time.Duration, before ...string) int {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(AgentWorkflow)
	env.RegisterActivity(&activities.Activities{})
	spec := approvalSpec() // its tool breaker's cooldown: the default 30 s
	spec.Model.Provider = "p"
	spec.Model.Fallbacks = []config.ModelFallback{{Name: "c", Provider: "q"}}
	spec.Model.FallbackCooldown = config.Duration(fallbackCooldown)
	env.OnActivity(acts.ResolveAgent, mock.Anything, mock.Anything).Return(spec, nil)
	env.OnActivity(acts.RunTool, mock.Anything, mock.Anything).Return(json.RawMessage(`{}`), nil)
	var asked []int
	env.OnActivity(acts.CallModel, mock.Anything, mock.Anything).Return(
		func(_ context.Context, req activities.ModelRequest) (*activities.ModelReply, error) {
			asked = append(asked, req.Fallback)
			switch len(asked) {
			case 1:
				return nil, badKey
			case 2:
				return &activities.ModelReply{ReplyID: "r2", ToolCalls: []activities.ToolCall{call("k1", "b", `{}`)}}, nil
			}
			return &activities.ModelReply{ReplyID: "r3", Content: "done"}, nil
		})
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(signals.Approve, signals.ApproveRequest{CallID: "n4", Decision: "approve"})
	}, 45*time.Second)
	for _, id := range before {
		env.OnGetVersion(versionRelease, workflow.DefaultVersion, releaseAll).Return(workflow.DefaultVersion)
		env.OnGetVersion(id, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	}
	env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "Book"})
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, asked, 3)
	require.Equal(t, []int{0, 1}, asked[:2], "refused, then its fallback")
	return asked[2]
}

// model.fallback_cooldown, not the tool breaker's cooldown, is how long a
// run stays with a fallback model.
func TestARunStaysOnAFallbackForTheModelsFallbackCooldown(t *testing.T) {
	require.Equal(t, 1, onFallbackAfter(t, time.Minute), "45 s on the fallback, within its minute")
	require.Equal(t, 0, onFallbackAfter(t, 20*time.Second), "past its 20 s: the model again")
	require.Equal(t, 0, onFallbackAfter(t, time.Minute, versionFallbackCooldown), "before fallback-cooldown: the tool breaker's 30 s")
}
