package testsuite

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// pollGraph polls with the cursor the previous poll returned, until a
// `done` that never comes: every visit has new arguments and a new State,
// so only the time window can see that the run is going round.
const pollGraph = `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: poll, http: { url: "{{TOOLS}}/poll" }, parameters: { type: object } }
agents:
  - name: poller
    instructions: Poll.
    tools: [poll]
    graph:
      start: P
      nodes:
        P: { tool: poll, args: { cursor: "†state.cursor || †input.start" }, output_path: "†state.cursor" }
        E: { end: true }
      edges:
        - { from: P, to: E, when: "state.cursor.done == true" }
        - { from: P, to: P }
    policies:
      max_steps: {{MAX_STEPS}}
      loop: { window: 16, repeats: 3, time_window: { visits: 5, within: {{WITHIN}} } }
      escalation: [stop]
`

func pollStack(t *testing.T, maxSteps, within string, delay time.Duration) (*stack, *toolServer) {
	var n atomic.Int64
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		time.Sleep(delay)
		writeJSON(w, 200, map[string]any{"next": n.Add(1), "done": false})
	})
	cfg := strings.NewReplacer("{{TOOLS}}", tools.URL, "{{MAX_STEPS}}", maxSteps, "{{WITHIN}}", within).Replace(pollGraph)
	return newStack(t, cfg, nil), tools
}

// Five visits of P within 30s are a time-window loop at the fifth visit,
// though no two visits are alike; the ladder answers it.
func TestTimeWindowStopsAFastPollingLoop(t *testing.T) {
	t.Parallel()
	s, tools := pollStack(t, "40", "30s", 0)
	run := s.start(workflows.AgentInput{Agent: "poller", Task: "poll", Input: []byte(`{"start": 0}`)})
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Contains(t, rep.Reason, "time_window loop")
	require.Len(t, rep.Escalations, 1)
	require.Len(t, tools.requests("/poll"), 5, "detected at the fifth visit")

	tr := s.trace(run)
	calls := nodesOf(tr, signals.KindCall)
	require.Len(t, calls, 5)
	esc := nodesOf(tr, signals.KindEscalation)
	require.Len(t, esc, 1)
	require.Equal(t, calls[4].ID, previousNode(tr, esc[0].ID).ID)
	require.Equal(t, "P", esc[0].GraphNode)
	st := s.status(run)
	require.Len(t, st.Loops, 1)
	require.Equal(t, policies.LoopTimeWindow, st.Loops[0].Kind)
	recordAndReplay(t, run, "graph_time_window")
}

// The same visits spread wider than the window (each poll takes 300ms,
// five take over a second; within: 1s) are not a loop: the run goes on
// to max_steps.
func TestTimeWindowLetsSlowVisitsGoOn(t *testing.T) {
	t.Parallel()
	s, tools := pollStack(t, "8", "1s", 300*time.Millisecond)
	run := s.start(workflows.AgentInput{Agent: "poller", Task: "poll", Input: []byte(`{"start": 0}`)})
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Contains(t, rep.Reason, "max_steps")
	require.Empty(t, rep.Escalations)
	require.Len(t, tools.requests("/poll"), 8)
}

// A time window or a volatile entry out of range is refused at worker
// start, with the field named.
func TestWorkerRefusesABadTimeWindow(t *testing.T) {
	t.Parallel()
	bins := binaries(t)
	path := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`model: { base_url: "http://127.0.0.1:9/v1", name: m }
tools:
  - { name: poll, http: { url: "http://127.0.0.1:9/poll" }, volatile: [/meta/x~2] }
agents:
  - name: poller
    instructions: x
    tools: [poll]
    policies: { loop: { time_window: { visits: 1, within: 48h } } }
`), 0o644))
	cmd := exec.Command(filepath.Join(bins, "unstuck-worker"), "--config", path)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+serverAddress)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the worker must refuse the file")
	text := string(out)
	require.Contains(t, text, "tools[0].volatile[0]")
	require.Contains(t, text, "agents[0].policies.loop.time_window.visits: must be between 2 and 1024")
	require.Contains(t, text, "agents[0].policies.loop.time_window.within: must be between 1s and 24h0m0s")
}
