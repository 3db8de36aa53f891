package testsuite

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/eval"
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
// tool node's failed searches (503, transient; one attempt a call) and
// the fourth, answered one, with the arguments the node resolved from the
// input, the llm node's lookup, and the loop the failures made with its
// time to progress; replayed against the same config it passes with no
// call off the recording and no tool reached, making the calls and
// meeting the loop the recording did.
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

	dir, c := exportCase(t, run.GetID())
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

	sc := replayCases(t, dir, sameConfigFile(t, graphEvalConfig, s, tools))
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

// graphRollbackConfig is a graph agent whose hold fails (503, one attempt
// a call) round H until the ladder's rollback takes the run back to P,
// without the edge into H, and on to the waitlist.
const graphRollbackConfig = `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: pick, http: { url: "{{TOOLS}}/pick" }, parameters: { type: object } }
  - { name: hold, retry: { max_attempts: 1 }, http: { url: "{{TOOLS}}/hold" }, parameters: { type: object } }
  - { name: waitlist, http: { url: "{{TOOLS}}/waitlist" }, parameters: { type: object } }
agents:
  - name: holder
    tools: [pick, hold, waitlist]
    policies: { loop: { window: 16, repeats: 3 }, escalation: [rollback, stop] }
    graph:
      start: P
      nodes:
        P: { tool: pick, args: { seat: "12A" }, output_path: "†state.seat" }
        H: { tool: hold, args: { seat: "†state.seat.id" }, output_path: "†state.held" }
        W: { tool: waitlist, args: { seat: "†state.seat.id" }, output_path: "†state.waitlisted" }
        E: { end: true, output: "†state.held || †state.waitlisted" }
      edges:
        - { from: P, to: H }
        - { from: P, to: W }
        - { from: H, to: H, when: "!ok" }
        - { from: H, to: E }
        - { from: W, to: E }
`

// A graph run the ladder rolled back (a new generation of the workflow,
// the loop's calls invalidated) replays as it ran: the calls the rollback
// took back reached their tool, and the replay makes them again, so the
// case holds them (with their class, read from the generation that made
// them) and the replay passes with no call off the recording.
func TestEvalGraphRollbackReplays(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		switch r.URL.Path {
		case "/pick":
			writeJSON(w, 200, map[string]any{"id": "12A"})
		case "/hold":
			writeJSON(w, 503, map[string]string{"error": "busy"})
		default:
			writeJSON(w, 200, map[string]any{"waitlisted": "12A"})
		}
	})
	s := newStack(t, strings.ReplaceAll(graphRollbackConfig, "{{TOOLS}}", tools.URL), nil)
	run := s.start(workflows.AgentInput{Agent: "holder", Task: "Hold seat 12A."})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"waitlisted":"12A"}`, string(res.Output))
	require.Len(t, res.Escalations, 1)
	require.Equal(t, "rollback", res.Escalations[0].Action)
	s.awaitListed(run.GetID(), "ExecutionStatus = 'Completed'")

	dir, c := exportCase(t, run.GetID())
	var called []string
	for _, r := range c.Tools {
		called = append(called, r.Tool)
	}
	require.Equal(t, []string{"pick", "hold", "hold", "hold", "waitlist"}, called)
	for _, hold := range c.Tools[1:4] {
		require.NotNil(t, hold.Error)
		require.Equal(t, "transient", hold.Error.Class, "503 is transient by default, in the generation before the rollback too")
	}
	require.Equal(t, 1, c.Recorded.Loops)
	require.Equal(t, []string{"rollback"}, c.Recorded.Rungs)
	require.NotNil(t, c.Recorded.LoopToProgress, "the waitlist is progress after the loop")

	sc := replayCases(t, dir, sameConfigFile(t, graphRollbackConfig, s, tools))
	got := sc.Cases[0]
	require.True(t, got.PassK, "%v", got.Why)
	require.Equal(t, 0, got.Diverged)
	replayed := sc.Runs[0].Outcome
	require.Equal(t, c.Recorded.ToolCalls, replayed.ToolCalls, "the replay made the recording's tool calls")
	require.Equal(t, c.Recorded.Loops, replayed.Loops)
	require.Equal(t, c.Recorded.Rungs, replayed.Rungs)
	require.Equal(t, c.Recorded.Output, replayed.Output)
	require.NotNil(t, replayed.LoopToProgress)
	require.Len(t, tools.requests("/hold"), 3, "the replay called no tool")
}
