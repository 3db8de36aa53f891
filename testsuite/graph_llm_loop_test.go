package testsuite

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A graph llm node that loops: the model (a scripted test double) asks
// for the same lookup at every visit, and the graph sends it back to the
// node until state.done, which never comes. The provider gives every
// call a new id and the model stamps each call with the time (sent_at,
// volatile for the tool), so the visits differ only by ids and a clock:
// the loop must be seen at the `repeats`-th visit, not run to max_steps.
func TestGraphLLMNodeLoopIsDetected(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 200, map[string]any{"found": false})
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: looper }
tools:
  - { name: lookup, http: { url: "` + tools.URL + `/lookup" }, parameters: { type: object }, volatile: [sent_at] }
agents:
  - name: looper
    instructions: Look it up.
    tools: [lookup]
    graph:
      start: L
      nodes:
        L: { llm: true }
        E: { end: true }
      edges:
        - { from: L, to: E, when: "state.done == true" }
        - { from: L, to: L }
    policies: { max_steps: 40, loop: { window: 16, repeats: 3 }, escalation: [stop] }
`
	looper := func(req openaiRequest) scriptedmodel.Turn {
		sentAt := fmt.Sprintf("2024-01-15T10:00:%02dZ", scriptedmodel.AssistantTurns(req))
		return scriptedmodel.CallTurn("lookup", map[string]any{"q": "NYC", "sent_at": sentAt})
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"looper": looper})
	run := s.start(workflows.AgentInput{Agent: "looper", Task: "find NYC"})
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Contains(t, rep.Reason, "loop", "stopped by the ladder, not by max_steps")
	require.Len(t, rep.Escalations, 1)
	require.Equal(t, "stop", rep.Escalations[0].Action)

	// Detected at the third visit: three model requests, three lookups.
	require.Equal(t, 3, s.model.RequestCount())
	require.Len(t, tools.requests("/lookup"), 3)
	tr := s.trace(run)
	require.Len(t, nodesOf(tr, signals.KindRequest), 3)
	require.Len(t, nodesOf(tr, signals.KindEscalation), 1)
	st := s.status(run)
	require.Len(t, st.Loops, 1)
	require.Equal(t, policies.LoopCycle, st.Loops[0].Kind)
	recordAndReplay(t, run, "graph_llm_node_loop")
}
