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

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// Messages that arrive while a run hands itself over, with the model
// scripted (a test double) and the activities mocked: the registry read
// takes a minute of the workflow's clock, so the messages land mid-handoff.

// deskSpecs is general (hands over to orders and people), orders, and a
// person, each resolved as the worker would.
func deskSpecs() map[string]*config.Resolved {
	f := &config.File{
		Model: config.Model{BaseURL: "http://127.0.0.1:1/v1", Name: "scripted:test"},
		Tools: []config.Tool{{Name: "a", Builtin: "echo", Parameters: map[string]any{"type": "object"}}},
		Agents: []config.Agent{
			{Name: "general", Instructions: "Route.", Tools: []string{"a"}, Handoffs: []string{"orders", "human"}},
			{Name: "orders", Instructions: "Orders.", Capabilities: []string{"orders"}, Tools: []string{"a"}},
			{Name: "person", Kind: config.KindHuman, Policies: config.Policies{HumanTimeout: config.Duration(time.Hour)}},
		},
	}
	f.SetDefaults()
	out := map[string]*config.Resolved{}
	for _, a := range f.Agents {
		r, err := f.Resolve(a.Name, func(string) (string, bool) { return "", false })
		if err != nil {
			panic(err)
		}
		out[a.Name] = r
	}
	return out
}

// handoffEnv is a test environment whose ResolveAgent answers specs, whose
// model answers replies in order ("done" after them), and whose registry
// read takes registryDelay.
type handoffEnv struct {
	env      *testsuite.TestWorkflowEnvironment
	mu       sync.Mutex
	requests []activities.ModelRequest
}

func newHandoffEnv(t *testing.T, specs map[string]*config.Resolved, replies []activities.ModelReply, registryDelay time.Duration) *handoffEnv {
	var s testsuite.WorkflowTestSuite
	h := &handoffEnv{env: s.NewTestWorkflowEnvironment()}
	h.env.SetTestTimeout(20 * time.Second)
	h.env.RegisterWorkflow(AgentWorkflow)
	h.env.RegisterActivity(&activities.Activities{})
	h.env.OnActivity(acts.ResolveAgent, mock.Anything, mock.Anything).Return(
		func(_ context.Context, name string) (*config.Resolved, error) {
			if spec, ok := specs[name]; ok {
				return spec, nil
			}
			return nil, temporal.NewNonRetryableApplicationError("unknown agent "+name, activities.UnknownAgentError, nil)
		})
	h.env.OnActivity(acts.VerifyCarried, mock.Anything, mock.Anything).Return(nil)
	h.env.OnActivity(acts.ReadRegistry, mock.Anything, mock.Anything).After(registryDelay).Return([]activities.AgentLoad{}, nil)
	h.env.OnActivity(acts.CallModel, mock.Anything, mock.Anything).Return(
		func(_ context.Context, req activities.ModelRequest) (*activities.ModelReply, error) {
			h.mu.Lock()
			h.requests = append(h.requests, req)
			i := len(h.requests) - 1
			h.mu.Unlock()
			if i >= len(replies) {
				return &activities.ModelReply{ReplyID: "r-end", Content: "done"}, nil
			}
			r := replies[i]
			r.ReplyID = "r" + string(rune('0'+i))
			return &r, nil
		})
	h.env.OnActivity(acts.RunTool, mock.Anything, mock.Anything).Return(json.RawMessage(`{"ok":true}`), nil)
	return h
}

// handoffToolReply is a model reply that calls the handoff tool.
func handoffToolReply(to string) activities.ModelReply {
	args := mustJSON(map[string]string{"to": to, "reason": "out_of_scope", "summary": "an order question", "suggested_next_action": "look it up"})
	return activities.ModelReply{ToolCalls: []activities.ToolCall{call("h1", HandoffTool, string(args))}}
}

// message sends an update (and records its outcome in got) or a signal.
func (h *handoffEnv) message(after time.Duration, name string, arg any, signal bool, got *updateResult) {
	h.env.RegisterDelayedCallback(func() {
		if signal {
			h.env.SignalWorkflow(name, arg)
			return
		}
		h.env.UpdateWorkflow(name, name+"-"+after.String(), &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { got.rejected = err },
			OnAccept:   func() {},
			OnComplete: func(v any, err error) { got.result, got.err, got.completed = v, err, true },
		}, arg)
	}, after)
}

// An edit or a handoff sent while the model's handoff is carried out is
// refused with the reason (it would wait for a run that is going away,
// and the run would wait for it: wedged); the run goes on as orders.
func TestMessagesDuringAnAutomaticHandoffAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name    string
		message string
		arg     any
	}{
		{"edit", signals.Edit, signals.EditRequest{NodeID: "n1", Output: json.RawMessage(`"another task"`)}},
		{"handoff", signals.Handoff, signals.HandoffRequest{To: "person"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHandoffEnv(t, deskSpecs(), []activities.ModelReply{handoffToolReply("orders")}, time.Minute)
			var got updateResult
			h.message(30*time.Second, tc.message, tc.arg, false, &got)
			h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "general", Task: "where is order 7?"})
			require.True(t, h.env.IsWorkflowCompleted(), "the run is wedged")
			require.ErrorContains(t, got.rejected, "a handoff to orders is being carried out")
			require.ErrorContains(t, got.rejected, "send it to the run that follows")
			next := continuedInput(t, &harness{t: t, env: h.env})
			require.Equal(t, "orders", next.Continued.Spec.Agent.Name)
		})
	}
}

// The signal forms are recorded and ignored with the same reason.
func TestSignalsDuringAnAutomaticHandoffAreRecordedAndIgnored(t *testing.T) {
	h := newHandoffEnv(t, deskSpecs(), []activities.ModelReply{handoffToolReply("orders")}, time.Minute)
	h.message(20*time.Second, signals.Edit, signals.EditRequest{NodeID: "n1", Output: json.RawMessage(`"another task"`)}, true, nil)
	h.message(30*time.Second, signals.Handoff, signals.HandoffRequest{To: "person"}, true, nil)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "general", Task: "where is order 7?"})
	require.True(t, h.env.IsWorkflowCompleted())
	next := continuedInput(t, &harness{t: t, env: h.env})
	require.Equal(t, "orders", next.Continued.Spec.Agent.Name)
	var ignored []string
	for _, n := range next.Continued.Nodes {
		if n.Kind == signals.KindHuman && n.Status == signals.StatusSkipped {
			ignored = append(ignored, n.Error)
		}
	}
	require.Len(t, ignored, 2)
	for _, why := range ignored {
		require.Contains(t, why, "a handoff to orders is being carried out")
	}
	require.Equal(t, []string{"general", "orders"}, next.Continued.HandoffPath, "the person's handoff was not carried out")
}
