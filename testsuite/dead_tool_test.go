package testsuite

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// repeatedDeadToolConfig: one tool that always answers 500, retried once by
// Temporal (two attempts per call), the default loop policy and the
// default ladder [retry, substitute, explore, rollback, handoff, human,
// stop]. The human rung waits only 2s here (the default is 24h), as nobody
// answers in this test. The tool stays down, and what is measured is the
// ladder over it, so the run does not wait the outage out (outage_test.go
// does): a max_wait shorter than the breaker's cooldown waits not at all.
const repeatedDeadToolConfig = `
model: { base_url: "{{MODEL}}", name: repeater }
tools:
  - name: lookup
    http: { url: "{{TOOLS}}/lookup" }
    retry: { initial_interval: 100ms, max_attempts: 2 }
    parameters: { type: object }
    outage: { max_wait: 1s }
agents:
  - name: repeater
    instructions: Look it up.
    tools: [lookup]
    policies: { human_timeout: 2s{{BREAKER}} }
`

// A model (a scripted test double) that repeats one call to a tool that
// is down: the run ends with AgentStopped and its report, and the rungs
// that cannot help are not spent: retry right after Temporal retried the
// same call, explore and rollback for a model that has no other tool.
// Issue 13 measured 10 tool hits and 11 model requests before rungs by
// class and worker breakers; LangGraph spends 12 and 13, OpenAI Agents 10
// and 10. The goal is at most 8 of each. With the default breaker the
// worker's breaker (5 failed attempts) cuts the third call short; with a
// lenient one, every call is two attempts and only the ladder decides.
func TestDeadToolCostsFewCalls(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, breaker, history string
		hits, requests         int // the figures measured with rungs by class
	}{
		{"default breaker", "", "dead_tool_few_calls", 5, 6},
		{"lenient breaker", ", breaker: { failures: 50 }", "dead_tool_few_calls_lenient_breaker", 6, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits, requests := deadToolRun(t, tc.breaker, tc.history)
			require.LessOrEqual(t, hits, 8, "tool hits")
			require.LessOrEqual(t, requests, 8, "model requests")
			require.Equal(t, tc.hits, hits, "tool hits")
			require.Equal(t, tc.requests, requests, "model requests")
		})
	}
}

// deadToolRun runs the repeating model against the dead tool until it
// stops, and answers the tool's hits and the model's requests.
func deadToolRun(t *testing.T, breaker, history string) (hits, requests int) {
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 500, map[string]string{"error": "internal server error"})
	})
	var asked atomic.Int64
	repeater := func(openaiRequest) scriptedmodel.Turn {
		asked.Add(1)
		return scriptedmodel.CallTurn("lookup", map[string]any{"q": "order 42"})
	}
	cfg := strings.NewReplacer("{{TOOLS}}", tools.URL, "{{BREAKER}}", breaker).Replace(repeatedDeadToolConfig)
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"repeater": repeater})
	run := s.start(workflows.AgentInput{Agent: "repeater", Task: "find order 42"})
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Contains(t, rep.Reason, "loop")
	require.NotEmpty(t, rep.Escalations, "the report names the rungs taken")

	hits, requests = len(tools.requests("/lookup")), int(asked.Load())
	var rungs []string
	for _, e := range rep.Escalations {
		rungs = append(rungs, e.Action)
	}
	t.Logf("dead tool, default ladder: %d tool hits, %d model requests, rungs %v", hits, requests, rungs)
	recordAndReplay(t, run, history)
	return hits, requests
}
