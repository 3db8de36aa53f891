package testsuite

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/eval"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// graphEvalConfig is a graph agent: a tool node searching the run's city,
// round again while the search fails (three failures in a row are a loop,
// whose first rung waits and goes on), then an llm node whose model looks
// the hotel up, then the end with the search's hotel.
const graphEvalConfig = `
model: { base_url: "{{MODEL}}", name: walker }
tools:
  - { name: search, retry: { max_attempts: 1 }, http: { url: "{{TOOLS}}/search" }, parameters: { type: object } }
  - { name: lookup, http: { url: "{{TOOLS}}/lookup" }, parameters: { type: object } }
agents:
  - name: walker
    instructions: Look the hotel up.
    tools: [search, lookup]
    policies: { loop: { window: 16, repeats: 3 }, escalation: [retry, stop] }
    graph:
      start: S
      nodes:
        S: { tool: search, args: { q: "†input.city" }, output_path: "†state.found" }
        L: { llm: true }
        E: { end: true, output: "†state.found" }
      edges:
        - { from: S, to: S, when: "!ok" }
        - { from: S, to: L }
        - { from: L, to: E }
`

// A graph agent's run exports and replays as a free-form one does: the
// tool node's failed searches (503, transient; one attempt a call) and the fourth, answered one,
// with the arguments the node resolved from the input, the llm node's
// lookup, and the loop the failures made with its time to progress;
// replayed against the same config it passes with no call off the
// recording and no tool reached, making the calls and meeting the loop
// the recording did.
func TestEvalGraphExportReplays(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch {
		case r.URL.Path == "/lookup":
			writeJSON(w, 200, map[string]any{"stars": 4})
		case n <= 3:
			writeJSON(w, 503, map[string]string{"error": "busy"})
		default:
			writeJSON(w, 200, map[string]string{"hotel": "H1"})
		}
	})
	walker := func(openaiRequest) scriptedmodel.Turn {
		return scriptedmodel.CallTurn("lookup", map[string]any{"hotel": "H1"})
	}
	s := newStack(t, strings.ReplaceAll(graphEvalConfig, "{{TOOLS}}", tools.URL), map[string]scriptedmodel.Script{"walker": walker})
	run := s.start(workflows.AgentInput{Agent: "walker", Task: "Find a hotel.", Input: json.RawMessage(`{"city":"nyc"}`)})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"hotel":"H1"}`, string(res.Output))
	s.awaitListed(run.GetID(), "ExecutionStatus = 'Completed'")

	dir, out, code := exportCases(t, nil, "WorkflowId = '"+run.GetID()+"'")
	require.Equal(t, 0, code, out)
	c, err := eval.Load(filepath.Join(dir, eval.CaseName(run.GetID())+eval.Ext))
	require.NoError(t, err)
	require.Equal(t, map[string]any{"city": "nyc"}, c.Input)
	require.Len(t, c.Tools, 5, "%+v", c.Tools)
	for _, failed := range c.Tools[:3] {
		require.Equal(t, "search", failed.Tool)
		require.Equal(t, map[string]any{"q": "nyc"}, failed.Args)
		require.NotNil(t, failed.Error)
		require.Equal(t, "transient", failed.Error.Class, "503 is transient by default")
	}
	require.Equal(t, eval.ToolResult{Tool: "search", Args: map[string]any{"q": "nyc"}, Result: map[string]any{"hotel": "H1"}}, c.Tools[3])
	require.Equal(t, eval.ToolResult{Tool: "lookup", Args: map[string]any{"hotel": "H1"}, Result: map[string]any{"stars": 4}}, c.Tools[4])
	rec := c.Recorded
	require.Equal(t, "completed", rec.Status)
	require.Equal(t, map[string]any{"hotel": "H1"}, rec.Output)
	require.Equal(t, int64(5), rec.ToolCalls)
	require.Equal(t, 1, rec.Loops)
	require.Equal(t, []string{"retry"}, rec.Rungs)
	require.NotNil(t, rec.LoopToProgress, "the answered search is progress after the loop")
	require.Zero(t, rec.LoopsWithoutProgress)

	cfg := filepath.Join(t.TempDir(), "same.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(strings.NewReplacer("{{MODEL}}", s.model.URL(), "{{TOOLS}}", tools.URL).Replace(graphEvalConfig)), 0o644))
	sc := replayCases(t, dir, cfg)
	require.Len(t, sc.Cases, 1)
	got := sc.Cases[0]
	require.True(t, got.PassK, "%v", got.Why)
	require.Equal(t, 0, got.Diverged)
	require.Equal(t, eval.ChangeSame, got.Change)
	require.Len(t, sc.Runs, 1)
	replayed := sc.Runs[0].Outcome
	require.Equal(t, rec.ToolCalls, replayed.ToolCalls, "the replay made the recording's tool calls")
	require.Equal(t, rec.Steps, replayed.Steps)
	require.Equal(t, rec.Output, replayed.Output)
	require.Equal(t, rec.Loops, replayed.Loops)
	require.Equal(t, rec.Rungs, replayed.Rungs)
	require.NotNil(t, replayed.LoopToProgress)
	require.NotNil(t, got.Recorded.Figures.LoopToProgress, "the scorecard has the recording's time to progress beside the replay's")
	require.Len(t, tools.requests("/search"), 4, "the replay called no tool")
	require.Len(t, tools.requests("/lookup"), 1, "the replay called no tool")
}
