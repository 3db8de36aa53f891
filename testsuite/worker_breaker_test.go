package testsuite

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// deadToolConfig: an agent whose only tool always answers 500; its
// breaker opens after 2 failures and stays open a minute; loops are not
// what this is about (repeats 10), nor waiting out an outage (a max_wait
// shorter than the cooldown waits not at all; outage_test.go waits).
const deadToolConfig = `
model: { base_url: "{{MODEL}}", name: dead-tool }
tools:
  - { name: dead, http: { method: POST, url: "{{TOOLS}}/dead" }, retry: { max_attempts: 1 }, parameters: { type: object }, outage: { max_wait: 1s } }
agents:
  - name: prober
    instructions: Call dead.
    tools: [dead]
    policies: { breaker: { failures: 2, cooldown: 1m }, loop: { window: 64, repeats: 10 } }
`

// Runs on one worker share its breaker of a tool: once the first run's
// calls have opened it, the next runs' calls are refused by the worker
// without reaching the tool (CircuitOpen), and each run's own breaker
// opens on that answer; the dead tool gets the breaker's two calls, not
// two per run.
func TestWorkerBreakerIsSharedByRuns(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		writeJSON(w, 500, map[string]string{"error": "down"})
	})
	call := scriptedmodel.CallTurn("dead", map[string]string{"q": "x"})
	s := newStack(t, strings.ReplaceAll(deadToolConfig, "{{TOOLS}}", tools.URL), map[string]scriptedmodel.Script{
		"dead-tool": scriptedmodel.Sequence(call, call, call, scriptedmodel.Reply("gave up")),
	})

	first := s.start(workflows.AgentInput{Agent: "prober", Task: "probe"})
	_, err := s.result(first)
	require.NoError(t, err)
	require.Len(t, tools.requests("/dead"), 2, "the first run: two failures open both breakers, the third call is refused by the run's")

	for i := 0; i < 5; i++ {
		run := s.start(workflows.AgentInput{Agent: "prober", Task: "probe"})
		res, err := s.result(run)
		require.NoError(t, err)
		require.JSONEq(t, `"gave up"`, string(res.Output))
		calls := nodesOf(s.trace(run), signals.KindCall)
		require.Len(t, calls, 3)
		require.Contains(t, calls[0].Error, "circuit open on this worker: tool dead failed 2 times in a row across runs")
		for _, c := range calls[1:] {
			require.Contains(t, c.Error, "circuit open", "the run's own breaker refuses the next calls")
			require.NotContains(t, c.Error, "on this worker", "without asking the worker")
		}
		require.Equal(t, "open", s.status(run).Breakers["dead"])
		if i == 0 {
			recordAndReplay(t, run, "worker_breaker_refusal")
		}
	}
	require.Len(t, tools.requests("/dead"), 2, "five more runs, not one more call to the dead tool")
}
