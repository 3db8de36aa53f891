package workflows

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
)

// A handoff reads the live load only of the agents it may weigh it for
// (policies.NeedsLoad): not the agent handing over, not one its handoffs
// leave out (billing); orders and the person are read.
func TestHandoffReadsOnlyTheLoadThatCanMatter(t *testing.T) {
	f := &config.File{
		Model: config.Model{BaseURL: "http://127.0.0.1:1/v1", Name: "scripted:test"},
		Tools: []config.Tool{{Name: "a", Builtin: "echo", Parameters: map[string]any{"type": "object"}}},
		Agents: []config.Agent{
			{Name: "general", Instructions: "Route.", Tools: []string{"a"}, Handoffs: []string{"orders", "human"}},
			{Name: "orders", Instructions: "Orders.", Capabilities: []string{"orders"}, Tools: []string{"a"}},
			{Name: "billing", Instructions: "Bills.", Capabilities: []string{"orders", "billing"}, Tools: []string{"a"}},
			{Name: "person", Kind: config.KindHuman, Policies: config.Policies{HumanTimeout: config.Duration(time.Hour)}},
		},
	}
	f.SetDefaults()
	specs := map[string]*config.Resolved{}
	for _, a := range f.Agents {
		r, err := f.Resolve(a.Name, func(string) (string, bool) { return "", false })
		require.NoError(t, err)
		specs[a.Name] = r
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(AgentWorkflow)
	env.RegisterActivity(&activities.Activities{})
	env.OnActivity(acts.ResolveAgent, mock.Anything, mock.Anything).Return(
		func(_ context.Context, name string) (*config.Resolved, error) { return specs[name], nil })
	env.OnActivity(acts.VerifyCarried, mock.Anything, mock.Anything).Return(nil)
	var mu sync.Mutex
	var asked [][]string
	env.OnActivity(acts.ReadRegistry, mock.Anything, mock.Anything).Return(
		func(_ context.Context, req activities.RegistryRequest) ([]activities.AgentLoad, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, req.Agents)
			return []activities.AgentLoad{}, nil
		})
	reply := handoffToolReply("orders")
	env.OnActivity(acts.CallModel, mock.Anything, mock.Anything).Return(&reply, nil)
	env.OnActivity(acts.RunTool, mock.Anything, mock.Anything).Return([]byte(`{"ok":true}`), nil)
	env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "general", Task: "where is order 7?"})
	require.True(t, env.IsWorkflowCompleted())
	next := continuedInput(t, &harness{t: t, env: env})
	require.Equal(t, "orders", next.Continued.Spec.Agent.Name)
	require.Equal(t, [][]string{{"orders", "person"}}, asked, "billing is not in general's handoffs, general is the source")
}
