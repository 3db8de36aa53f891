package testsuite

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdktestsuite "go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// The registry's live figures come from the server's visibility: an
// agent's runs now, and how its runs ended over the window (a handoff's
// choice of target reads them).
func TestReadRegistryCountsAnAgentsRuns(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { writeJSON(w, 200, map[string]any{"ok": true}) })
	agent := fmt.Sprintf("registry%d", time.Now().UnixNano()%1_000_000_000)
	cfg := `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: hold, approval: always, http: { method: POST, url: "` + tools.URL + `/hold" } }
agents:
  - name: ` + agent + `
    instructions: Hold.
    tools: [hold]
    graph: { start: H, nodes: { H: { tool: hold }, E: { end: true } }, edges: [ { from: H, to: E } ] }
`
	s := newStack(t, cfg, nil)
	done := s.start(workflows.AgentInput{Agent: agent, Task: "one"})
	waiting := s.start(workflows.AgentInput{Agent: agent, Task: "two"})
	require.NoError(t, s.update(done, signals.Approve, signals.ApproveRequest{CallID: s.pendingApproval(done).CallID, Decision: signals.DecisionApprove}))
	_, err := s.result(done)
	require.NoError(t, err)
	s.pendingApproval(waiting)

	var suite sdktestsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(activities.New(s.cfg, serverClient))
	var acts *activities.Activities
	var loads []activities.AgentLoad
	require.Eventually(t, func() bool { // visibility catches up in a moment
		v, err := env.ExecuteActivity(acts.ReadRegistry, activities.RegistryRequest{
			Agents: []string{agent, "nobody's"}, Window: time.Hour, Namespace: "default"})
		require.NoError(t, err)
		require.NoError(t, v.Get(&loads))
		return loads[0].Running == 1 && loads[0].Ended == 1
	}, 20*time.Second, 200*time.Millisecond, "%+v", loads)
	require.Equal(t, activities.AgentLoad{Agent: agent, Running: 1, Completed: 1, Ended: 1}, loads[0])
	require.Equal(t, 1.0, loads[0].SuccessRate())
	require.Equal(t, activities.AgentLoad{Agent: "nobody's"}, loads[1], "a quote in a name is escaped, and counts nothing")
	require.Equal(t, -1.0, loads[1].SuccessRate())
}
