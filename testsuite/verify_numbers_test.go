package testsuite

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// numbersConfig: free_rooms answers {"free": 3} and its verify compares
// numbers of the result with a number and with the call's args. The
// graph's tool node also takes an edge whose condition compares a number
// of State.
var numbersConfig = `
model: { base_url: "{{MODEL}}", name: counter }
tools:
  - name: free_rooms
    http: { url: "{{TOOLS}}/free_rooms", timeout: 5s }
    verify: "result.free > 0 && result.free <= args.max && result.rate == 99.5"
    parameters: { type: object }
agents:
  - name: graph-rooms-node
    tools: [free_rooms]
    policies: { loop: { window: 16, repeats: 3 }, escalation: [stop] }
    graph:
      start: R
      nodes: { R: { tool: free_rooms, args: { max: 10 }, output_path: "†state.rooms" }, E: { end: true, output: "†state.rooms" } }
      edges: [ { from: R, to: E, when: "ok && state.rooms.free == 3" }, { from: R, to: R } ]
` + twins("rooms", "instructions: Count rooms., tools: [free_rooms], policies: { loop: { window: 16, repeats: 3 }, escalation: [stop] }")

// A tool that answers {"free": 3} to a verify of "result.free > 0" is
// verified and called once, in each run shape (issue 50: it was called
// three times and never verified, json.Number > int).
func TestVerifyComparesNumbers(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells, parityCell{capability: "verify compares numbers", shape: shape, run: func(t *testing.T) {
			tools := newRoomsServer(t)
			s := newStack(t, strings.ReplaceAll(numbersConfig, "{{TOOLS}}", tools.URL), map[string]scriptedmodel.Script{
				"counter": scriptedmodel.Sequence(scriptedmodel.CallTurn("free_rooms", map[string]any{"max": 10}), finished),
			})
			run := s.start(workflows.AgentInput{Agent: shape + "-rooms", Task: "count"})
			requireOutput(t, s, run)
			requireVerifiedOnce(t, s, tools, run)
			recordAndReplay(t, run, historyName("verify_numbers", shape))
		}})
	}
	cells = append(cells, parityCell{capability: "verify compares numbers", shape: graph, variant: "tool node", run: func(t *testing.T) {
		tools := newRoomsServer(t)
		s := newStack(t, strings.ReplaceAll(numbersConfig, "{{TOOLS}}", tools.URL), nil)
		run := s.start(workflows.AgentInput{Agent: "graph-rooms-node", Task: "count"})
		res, err := s.result(run)
		require.NoError(t, err)
		require.Equal(t, "completed", string(res.Status))
		require.JSONEq(t, `{"free": 3, "rate": 99.5}`, string(res.Output))
		requireVerifiedOnce(t, s, tools, run)
		recordAndReplay(t, run, "verify_numbers_tool_node")
	}})
	runParity(t, cells)
}

func newRoomsServer(t *testing.T) *toolServer {
	return newToolServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(w, 200, map[string]any{"free": 3, "rate": 99.5})
	})
}

// requireVerifiedOnce: free_rooms was called once and its check passed.
// The run asked versionExprNumbers: its recording replays the new
// evaluation.
func requireVerifiedOnce(t *testing.T, s *stack, tools *toolServer, run client.WorkflowRun) {
	t.Helper()
	require.Len(t, tools.requests("/free_rooms"), 1, "the tool is called once")
	calls := callsOf(s.trace(run), "free_rooms")
	require.Len(t, calls, 1)
	require.Equal(t, signals.StatusCompleted, calls[0].Status, calls[0].Error)
	require.NotNil(t, calls[0].Check)
	require.True(t, calls[0].Check.Passed, calls[0].Check.Reason)
	require.Zero(t, s.status(run).Unverified)
	requireVersionMarker(t, run, "expr-numbers")
}
