package testsuite

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/workflows"
)

const stateLoopConfig = `
model: { base_url: "{{MODEL}}", name: dither }
tools:
  - { name: set, http: { url: "{{TOOLS}}/set" }, parameters: { type: object } }
  - { name: read, http: { url: "{{TOOLS}}/read" }, parameters: { type: object } }
agents:
  - name: dither
    instructions: Decide.
    tools: [set, read]
    policies: { max_steps: 30, loop: { window: 16, repeats: 3 }, escalation: [stop] }
`

// stateTools: set answers its arguments (the model stores them at
// †state.v), read answers a constant.
func stateTools(t *testing.T) *toolServer {
	return newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.URL.Path == "/read" {
			writeJSON(w, 200, map[string]bool{"ok": true})
			return
		}
		var args map[string]any
		_ = json.NewDecoder(r.Body).Decode(&args)
		writeJSON(w, 200, args)
	})
}

// set is the model's call storing v at †state.v (with note, when given).
func set(v int, note string) scriptedmodel.Turn {
	args := map[string]any{"v": v, "_outputPath": "†state.v"}
	if note != "" {
		args["note"] = note
	}
	return scriptedmodel.CallTurn("set", args)
}

// A model (a scripted test double) that dithers between two States by
// calls it has made before, in no fixed order (set 1, set 2, read, set 1,
// read, set 2, set 1): no cycle, no failure, but the third time it is
// back at v=1 with nothing new it is a state loop.
func TestStateLoopDitheringModelIsStopped(t *testing.T) {
	t.Parallel()
	tools := stateTools(t)
	read := scriptedmodel.CallTurn("read", map[string]any{})
	script := scriptedmodel.Sequence(set(1, ""), set(2, ""), read, set(1, ""), read, set(2, ""), set(1, ""), read, read, read)
	s := newStack(t, strings.ReplaceAll(stateLoopConfig, "{{TOOLS}}", tools.URL), map[string]scriptedmodel.Script{"dither": script})
	run := s.start(workflows.AgentInput{Agent: "dither", Task: "decide"})
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Contains(t, rep.Reason, "state loop")
	require.Len(t, rep.Escalations, 1)
	require.Len(t, tools.requests("/set"), 5)
	require.Len(t, tools.requests("/read"), 2, "stopped at the seventh call")
	st := s.status(run)
	require.Len(t, st.Loops, 1)
	require.Equal(t, policies.LoopState, st.Loops[0].Kind)
	recordAndReplay(t, run, "state_loop_dithering")
}

// Coming back to the same States by new calls is progress: the run goes
// on and ends with the model's answer.
func TestStateLoopNewCallsAreProgress(t *testing.T) {
	t.Parallel()
	tools := stateTools(t)
	script := scriptedmodel.Sequence(set(1, ""), set(2, ""), set(1, "again"), set(2, "again"), set(1, "once more"), set(2, "once more"),
		scriptedmodel.Reply("v is 2"))
	s := newStack(t, strings.ReplaceAll(stateLoopConfig, "{{TOOLS}}", tools.URL), map[string]scriptedmodel.Script{"dither": script})
	run := s.start(workflows.AgentInput{Agent: "dither", Task: "decide"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, `"v is 2"`, string(res.Output))
	require.Empty(t, res.Escalations)
	require.Len(t, tools.requests("/set"), 6)
	recordAndReplay(t, run, "state_loop_new_calls_progress")
}
