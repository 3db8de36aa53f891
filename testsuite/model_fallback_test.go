package testsuite

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A model that is down (503 on every attempt) hands the request to the
// agent's fallback model once its retries are spent; the run's next
// requests go to the fallback at once, within the breaker's cooldown.
func TestAModelThatIsDownFallsBackToTheNextModel(t *testing.T) {
	t.Parallel()
	cfg := `
model:
  base_url: "{{MODEL}}"
  name: primary
  retry: { max_attempts: 2, initial_interval: 100ms }
  fallbacks: [ { name: backup } ]
tools:
  - { name: echo, builtin: echo, parameters: { type: object } }
agents:
  - { name: steady, instructions: Count., tools: [echo] }
`
	down := func(openaiRequest) scriptedmodel.Turn {
		return scriptedmodel.Turn{Status: 503, Message: "the primary is overloaded (scripted)"}
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"primary": down, "backup": scriptedmodel.Sequence(
		scriptedmodel.CallTurn("echo", map[string]any{"i": 1}),
		scriptedmodel.CallTurn("echo", map[string]any{"i": 2}),
		scriptedmodel.CallTurn("final_output", map[string]any{"done": true}),
	)})
	run := s.start(workflows.AgentInput{Agent: "steady", Task: "count"})
	requireFellBackToBackup(t, s, run)
	recordAndReplay(t, run, "model_fallback")
}

// requireFellBackToBackup: the run completed with {"done": true} after two
// attempts of the primary (503), every request after them going to the
// backup, with one escalation node saying so.
func requireFellBackToBackup(t *testing.T, s *stack, run client.WorkflowRun) {
	t.Helper()
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))
	byModel := map[string]int{}
	for _, req := range s.model.Requests() {
		byModel[req.Model]++
	}
	require.Equal(t, map[string]int{"primary": 2, "backup": 3}, byModel, "two attempts of the primary, then every request of the backup")
	esc := nodesOf(s.trace(run), signals.KindEscalation)
	require.Len(t, esc, 1)
	require.JSONEq(t, `{"action": "model_fallback", "from": "primary", "to": "backup"}`, string(esc[0].Args))
	require.Contains(t, string(esc[0].Output), "HTTP 503")
	require.Equal(t, 1, s.status(run).ModelFallbacks)
}
