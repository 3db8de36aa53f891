package testsuite

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A read-back that cannot read (docs/verify.md, "When the read-back
// cannot read"): book_room books, and get_booking, its read-back, is down.
// Could not check is not did not happen: the write is held as
// outcome_unknown, never run again while it is, and the read tool's
// breaker counts the failures, not the write's. On the real server, in
// both run shapes and a graph's tool node.

// unknownConfig: get_booking tries twice, quickly; breakers open at four
// failures, so the status shows whose breaker counted them: the worker's
// breaker of get_booking opens at its fourth failed try, and refuses the
// next read-back, which opens the run's. The model's twins book three
// times, short of a loop.
var unknownConfig = `
model: { base_url: "{{MODEL}}", name: unknown }
tools:
  - name: book_room
    http: { url: "{{TOOLS}}/book_room", timeout: 5s }
    effect: write
    verify: { tool: get_booking, args: { id: "†result.confirmation" }, expect: "result.state == 'confirmed'" }
    parameters: { type: object }
  - { name: get_booking, http: { url: "{{TOOLS}}/get_booking", timeout: 1s }, retry: { max_attempts: 2, initial_interval: 100ms, backoff: 1.0 }, parameters: { type: object } }
agents:
  - name: graph-node-unknown
    tools: [book_room]
    policies: { loop: { window: 16, repeats: 3 }, breaker: { failures: 4 }, escalation: [stop] }
    graph:
      start: B
      nodes: { B: { tool: book_room, args: { room: "12" }, output_path: "†state.booking" }, E: { end: true, output: "†state.booking" } }
      edges: [ { from: B, to: E, when: "ok" }, { from: B, to: B } ]
` + twins("unknown", "instructions: Book the room., tools: [book_room], policies: { loop: { window: 16, repeats: 4 }, breaker: { failures: 4 }, escalation: [stop] }")

// readsDown is how the read-back's service fails: 503 to every try, or
// no answer within get_booking's timeout.
type readsDown string

const (
	readsUnavailable readsDown = "503"
	readsTimeOut     readsDown = "timeout"
)

// newDownReadServer books every write (B1) and fails every read.
func newDownReadServer(t *testing.T, how readsDown) *toolServer {
	return newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		switch r.URL.Path {
		case "/book_room":
			writeJSON(w, 200, map[string]string{"confirmation": "B1"})
		case "/get_booking":
			if how == readsTimeOut {
				time.Sleep(1500 * time.Millisecond)
			}
			writeJSON(w, 503, map[string]string{"error": "bookings are down"})
		}
	})
}

func startUnknown(t *testing.T, agent string, how readsDown, script scriptedmodel.Script) (*stack, *toolServer, client.WorkflowRun) {
	tools := newDownReadServer(t, how)
	var scripts map[string]scriptedmodel.Script
	if script != nil {
		scripts = map[string]scriptedmodel.Script{"unknown": script}
	}
	s := newStack(t, strings.ReplaceAll(unknownConfig, "{{TOOLS}}", tools.URL), scripts)
	return s, tools, s.start(workflows.AgentInput{Agent: agent, Task: "book room 12"})
}

func TestParityOfReadBacksThatCannotRead(t *testing.T) {
	t.Parallel()
	runParity(t, []parityCell{
		{capability: "read-back down: the write is held unknown", shape: freeForm, run: func(t *testing.T) { unknownWriteIsNotRunAgain(t, freeForm, readsUnavailable) }},
		{capability: "read-back down: the write is held unknown", shape: graph, run: func(t *testing.T) { unknownWriteIsNotRunAgain(t, graph, readsUnavailable) }},
		{capability: "read-back down: the write is held unknown", shape: graph, variant: "tool node", run: unknownToolNodeWritesOnce},
		{capability: "read-back times out: the write is held unknown", shape: freeForm, run: func(t *testing.T) { unknownWriteIsNotRunAgain(t, freeForm, readsTimeOut) }},
	})
}

// The model books, reads that the booking's outcome is unknown, and books
// again, twice: each time the read-back is tried again (two tries each,
// the read tool's policy), and the write is not run again. The third
// read-back is refused by the worker's breaker of get_booking. The tool
// server got one write.
func unknownWriteIsNotRunAgain(t *testing.T, shape string, how readsDown) {
	s, tools, run := startUnknown(t, shape+"-unknown", how, scriptedmodel.Sequence(bookRoom, bookRoom, bookRoom, finished))
	requireOutput(t, s, run)

	require.Len(t, tools.requests("/book_room"), 1, "the write ran once")
	require.Len(t, tools.requests("/get_booking"), 4, "two read-backs of two tries, then the worker's breaker holds get_booking")
	tr := s.trace(run)
	calls := callsOf(tr, "book_room")
	require.Len(t, calls, 3)
	reads := callsOf(tr, "get_booking")
	require.Len(t, reads, 3)
	first := calls[0]
	require.Equal(t, signals.StatusFailed, first.Status)
	require.Contains(t, first.Error, "the outcome of the write is unknown: its read-back get_booking could not read")
	require.True(t, first.Check.Unknown)
	require.False(t, first.Check.Passed)
	require.Equal(t, reads[0].ID, first.Check.ReadBack)
	requireUnknownEnvelope(t, envelope(t, s, 1), first)

	for i, again := range calls[1:] {
		require.Equal(t, again.ID, reads[i+1].CheckOf, "a read-back before anything else")
		require.Equal(t, signals.StatusFailed, again.Status)
		require.Empty(t, again.ReusedFrom)
		require.Contains(t, again.Error, "not run again: the outcome of "+first.ID+" is still unknown: its read-back get_booking could not read")
		require.True(t, again.Check.Unknown)
		env := envelope(t, s, i+2)
		require.Equal(t, string(policies.OutcomeUnknown), env["class"])
		require.Equal(t, again.Error, env["error"])
	}
	require.Contains(t, calls[2].Error, "circuit open on this worker: tool get_booking")

	st := s.status(run)
	require.Zero(t, st.Unverified, "could not check is not a failed check")
	require.Equal(t, policies.BreakerOpen, st.Breakers["get_booking"], "the read tool's breaker counted the failures")
	require.Equal(t, policies.BreakerClosed, st.Breakers["book_room"], "the write tool served: its breaker counts nothing against it")

	if how == readsUnavailable {
		requireVersionMarker(t, run, "read-back-unknown")
		recordAndReplay(t, run, historyName("verify_read_back_unknown", shape))
	}
}

// A graph's tool node books and takes its way back to itself while the
// outcome is unknown: the node is visited until the loop ladder stops the
// run, and the write ran once.
func unknownToolNodeWritesOnce(t *testing.T) {
	s, tools, run := startUnknown(t, "graph-node-unknown", readsUnavailable, nil)
	_, err := s.result(run)
	stoppedReport(t, err)

	require.Len(t, tools.requests("/book_room"), 1, "the write ran once")
	require.Len(t, tools.requests("/get_booking"), 4, "two read-backs of two tries, then the worker's breaker holds get_booking")
	tr := s.trace(run)
	calls := callsOf(tr, "book_room")
	require.Len(t, calls, 3, "the third visit is the loop")
	for _, c := range calls {
		require.Equal(t, "B", c.GraphNode)
		require.Equal(t, signals.StatusFailed, c.Status)
		require.True(t, c.Check.Unknown, "%s: %s", c.ID, c.Error)
	}
	st := s.status(run)
	require.Equal(t, policies.BreakerOpen, st.Breakers["get_booking"])
	require.Equal(t, policies.BreakerClosed, st.Breakers["book_room"])
	require.Zero(t, st.Unverified)
	requireVersionMarker(t, run, "read-back-unknown")
	recordAndReplay(t, run, "verify_read_back_unknown_tool_node")
}

// requireUnknownEnvelope checks that the model read that call's outcome
// is unknown: the reason, the class outcome_unknown, and what the tool
// answered.
func requireUnknownEnvelope(t *testing.T, env map[string]any, call signals.Node) {
	t.Helper()
	require.Equal(t, string(policies.OutcomeUnknown), env["class"])
	require.Equal(t, call.Error, env["error"])
	var claimed any
	require.NoError(t, json.Unmarshal(call.Output, &claimed))
	require.Equal(t, claimed, env["result"], "the model reads what the tool answered")
}
