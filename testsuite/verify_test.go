package testsuite

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Checked calls (docs/verify.md) on the real server, in both run shapes:
// tools that answer 200 and did not do what they said are caught by an
// expression, a result_schema or a read-back, the model reads why, and
// a write asked for again is never made twice. The tools are real HTTP
// servers on loopback; the model is the scripted test double.

// verifyConfig has the agent checker of both shapes, and graph-payer
// whose tool node pays; {{TOOLS}} is the tool server. get_booking is only
// book_room's read-back: never offered.
var verifyConfig = `
model: { base_url: "{{MODEL}}", name: checker }
tools:
  - name: pay
    http: { url: "{{TOOLS}}/pay", timeout: 5s }
    effect: write
    verify: "result.status == 'paid' && result.amount == args.amount"
    parameters: { type: object }
  - name: find_hotel
    http: { url: "{{TOOLS}}/find_hotel", timeout: 5s }
    result_schema: { type: object, required: [hotel], properties: { hotel: { type: string, minLength: 1 } } }
    parameters: { type: object }
  - name: book_room
    http: { url: "{{TOOLS}}/book_room", timeout: 5s }
    effect: write
    verify: { tool: get_booking, args: { id: "†result.confirmation" }, expect: "result.state == 'confirmed' && result.room == args.room" }
    parameters: { type: object }
  - { name: get_booking, http: { url: "{{TOOLS}}/get_booking", timeout: 5s }, parameters: { type: object } }
  - { name: cancel, http: { url: "{{TOOLS}}/cancel", timeout: 5s }, effect: write, parameters: { type: object } }
  - { name: ping, http: { url: "{{TOOLS}}/ping", timeout: 5s }, effect: write, repeatable: true, parameters: { type: object } }
agents:
  - name: graph-payer
    tools: [pay]
    graph:
      start: P
      nodes: { P: { tool: pay, args: { amount: 120 }, output_path: "†state.paid" }, E: { end: true, output: "†state.paid" } }
      edges: [ { from: P, to: E, when: "ok" }, { from: P, to: P } ]
` + twins("checker", "instructions: Do the task., tools: [pay, find_hotel, book_room, cancel, ping], policies: { loop: { window: 16, repeats: 3 }, escalation: [stop] }")

// hotelDesk is the state of the tool server: the bookings it holds, and
// how book_room misbehaves. A late booking is missing at the first
// read; a dropped first write answers as if it booked; a desk whose
// reads are gone answers get_booking 404.
type hotelDesk struct {
	late, dropFirst, readsGone bool
	mu                         sync.Mutex
	rooms                      map[string]string // confirmation -> room
}

// newHotelServer serves the tools of verifyConfig: pay answers pending
// at first, then paid; find_hotel answers {} at first, then a hotel;
// book_room books as desk says and get_booking reads desk's bookings;
// cancel and ping answer the same to every call.
func newHotelServer(t *testing.T, desk *hotelDesk) *toolServer {
	desk.rooms = map[string]string{}
	return newToolServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		var args map[string]any
		_ = json.NewDecoder(r.Body).Decode(&args)
		switch r.URL.Path {
		case "/pay":
			status := "paid"
			if n == 1 {
				status = "pending"
			}
			writeJSON(w, 200, map[string]any{"status": status, "amount": args["amount"]})
		case "/find_hotel":
			if n == 1 {
				writeJSON(w, 200, map[string]any{})
				return
			}
			writeJSON(w, 200, map[string]string{"hotel": "Ritz"})
		case "/book_room":
			desk.book(n, args)
			writeJSON(w, 200, map[string]string{"confirmation": "B1"})
		case "/get_booking":
			if desk.readsGone {
				writeJSON(w, 404, map[string]string{"error": "no such endpoint"})
				return
			}
			writeJSON(w, 200, desk.read(n, args))
		default:
			writeJSON(w, 200, map[string]bool{"ok": true})
		}
	})
}

func (d *hotelDesk) book(n int, args map[string]any) {
	if d.dropFirst && n == 1 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	room, _ := args["room"].(string)
	d.rooms["B1"] = room
}

func (d *hotelDesk) read(n int, args map[string]any) map[string]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	id, _ := args["id"].(string)
	room, ok := d.rooms[id]
	if !ok || (d.late && n == 1) {
		return map[string]string{"state": "missing"}
	}
	return map[string]string{"state": "confirmed", "room": room}
}

// startChecker starts the shape's checker on an in-process worker, with
// script as the model.
func startChecker(t *testing.T, shape string, tools *toolServer, script scriptedmodel.Script) (*stack, client.WorkflowRun) {
	s := newStack(t, strings.ReplaceAll(verifyConfig, "{{TOOLS}}", tools.URL), map[string]scriptedmodel.Script{"checker": script})
	return s, s.start(workflows.AgentInput{Agent: shape + "-checker", Task: "do it"})
}

// finished is the scripted model's final output; {"done": true} ends the graph twin's
// llm loop.
var finished = finalOutput(map[string]any{"done": true})

// requireOutput waits for the run to complete with its final output.
func requireOutput(t *testing.T, s *stack, run client.WorkflowRun) {
	t.Helper()
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	require.JSONEq(t, `{"done": true}`, string(res.Output))
}

// envelope is what the model read as the result of its call in request
// i (counted from 0): the only tool message after its last reply.
func envelope(t *testing.T, s *stack, i int) map[string]any {
	t.Helper()
	results := scriptedmodel.LastToolResults(s.model.Requests()[i])
	require.Len(t, results, 1, "request %d answers the one call, never a read-back", i)
	var env map[string]any
	require.NoError(t, json.Unmarshal([]byte(results[0].Content), &env))
	return env
}

// requireUnverifiedEnvelope checks that the model read call's failure:
// its reason, the class unverified, and what the tool claimed.
func requireUnverifiedEnvelope(t *testing.T, env map[string]any, call signals.Node) {
	t.Helper()
	require.Equal(t, "unverified", env["class"])
	require.Equal(t, call.Error, env["error"])
	var claimed any
	require.NoError(t, json.Unmarshal(call.Output, &claimed))
	require.Equal(t, claimed, env["result"], "the model reads what the tool claimed")
}

// requireVersionMarker checks the run's history holds the version marker
// of changeID, so the replay of its recording covers the gated code.
func requireVersionMarker(t *testing.T, run client.WorkflowRun, changeID string) {
	t.Helper()
	found := false
	forEachEvent(t, run, func(ev *historypb.HistoryEvent) {
		m := ev.GetMarkerRecordedEventAttributes()
		if found || m.GetMarkerName() != "Version" {
			return
		}
		var id string
		require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["change-id"], &id))
		found = id == changeID
	})
	require.True(t, found, "the history of %s holds no %s marker", run.GetID(), changeID)
}

// historyName is a recording's name for the shape.
func historyName(prefix, shape string) string {
	return prefix + "_" + strings.ReplaceAll(shape, "-", "_")
}

func TestParityOfCheckedCalls(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells,
			parityCell{capability: "verify expression fails, then holds", shape: shape, run: func(t *testing.T) { expressionFailsThenHolds(t, shape) }},
			parityCell{capability: "result_schema: an empty object", shape: shape, run: func(t *testing.T) { emptyResultFailsSchema(t, shape) }},
			parityCell{capability: "read-back passes", shape: shape, run: func(t *testing.T) { readBackPasses(t, shape) }},
			parityCell{capability: "read-back itself fails", shape: shape, run: func(t *testing.T) { readBackFails(t, shape) }},
			parityCell{capability: "unverified write that did happen", shape: shape, run: func(t *testing.T) { unverifiedWriteDidHappen(t, shape) }},
			parityCell{capability: "unverified write that did not happen", shape: shape, run: func(t *testing.T) { unverifiedWriteDidNotHappen(t, shape) }},
			parityCell{capability: "no-op write", shape: shape, run: func(t *testing.T) { noOpWriteLoops(t, shape) }},
			parityCell{capability: "repeatable write", shape: shape, run: func(t *testing.T) { repeatableWriteIsNoNoOp(t, shape) }},
		)
	}
	cells = append(cells, parityCell{capability: "verify expression fails, then holds", shape: graph, variant: "tool node", run: toolNodeFailsThenHolds})
	runParity(t, cells)
}

// pay answers pending: the call fails its verify, the model reads why
// and pays again, and the run reaches its output. unstuck status counts
// the unverified call.
func expressionFailsThenHolds(t *testing.T, shape string) {
	pay := scriptedmodel.CallTurn("pay", map[string]any{"amount": 120})
	tools := newHotelServer(t, &hotelDesk{})
	s, run := startChecker(t, shape, tools, scriptedmodel.Sequence(pay, pay, finished))
	requireOutput(t, s, run)

	calls := callsOf(s.trace(run), "pay")
	require.Len(t, calls, 2)
	first := calls[0]
	require.Equal(t, signals.StatusFailed, first.Status)
	cond := "result.status == 'paid' && result.amount == args.amount"
	require.Equal(t, `verify "`+cond+`" is false: result.status = "pending", result.amount = 120, args.amount = 120`, first.Error)
	require.Equal(t, &signals.Check{Kind: signals.CheckVerify, Condition: cond, Reason: first.Error, Seen: []signals.Seen{
		{Path: "result.status", Value: json.RawMessage(`"pending"`)},
		{Path: "result.amount", Value: json.RawMessage(`120`)},
		{Path: "args.amount", Value: json.RawMessage(`120`)},
	}}, first.Check)
	requireUnverifiedEnvelope(t, envelope(t, s, 1), first)

	require.Equal(t, signals.StatusCompleted, calls[1].Status)
	require.True(t, calls[1].Check.Passed)
	require.Equal(t, map[string]any{"status": "paid", "amount": 120.0}, envelope(t, s, 2), "the model reads the result that holds")
	require.Equal(t, 1, s.status(run).Unverified)
	require.Regexp(t, regexp.MustCompile(`(?m)^unverified:\s+1$`), unstuckCLI(t, "status", run.GetID()))

	requireVersionMarker(t, run, "checked-calls")
	recordAndReplay(t, run, historyName("verify_expression", shape))
}

// find_hotel answers {}: its result_schema names the empty object, and
// the model's next try finds a hotel.
func emptyResultFailsSchema(t *testing.T, shape string) {
	find := scriptedmodel.CallTurn("find_hotel", map[string]any{"city": "Paris"})
	tools := newHotelServer(t, &hotelDesk{})
	s, run := startChecker(t, shape, tools, scriptedmodel.Sequence(find, find, finished))
	requireOutput(t, s, run)

	calls := callsOf(s.trace(run), "find_hotel")
	require.Len(t, calls, 2)
	require.Equal(t, signals.StatusFailed, calls[0].Status)
	require.Equal(t, signals.CheckResultSchema, calls[0].Check.Kind)
	require.Contains(t, calls[0].Error, "the tool answered an empty object {} where its result_schema wants content: ")
	require.Contains(t, calls[0].Error, "hotel")
	requireUnverifiedEnvelope(t, envelope(t, s, 1), calls[0])
	require.Equal(t, signals.StatusCompleted, calls[1].Status)
	require.Equal(t, 1, s.status(run).Unverified)
}

// A graph's tool node pays and the tool answers pending: the node takes
// its !ok edge back to itself, State never holds the pending result, and
// the second visit's payment ends the run.
func toolNodeFailsThenHolds(t *testing.T) {
	tools := newHotelServer(t, &hotelDesk{})
	s := newStack(t, strings.ReplaceAll(verifyConfig, "{{TOOLS}}", tools.URL), nil)
	run := s.start(workflows.AgentInput{Agent: "graph-payer", Task: "pay"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"status": "paid", "amount": 120}`, string(res.Output))

	calls := callsOf(s.trace(run), "pay")
	require.Len(t, calls, 2)
	require.Equal(t, signals.StatusFailed, calls[0].Status)
	require.Equal(t, "P", calls[0].GraphNode)
	require.Contains(t, calls[0].Error, `result.status = "pending"`)
	require.Equal(t, signals.CheckVerify, calls[0].Check.Kind)
	require.Equal(t, signals.StatusCompleted, calls[1].Status)
	require.Equal(t, 1, s.status(run).Unverified)
	requireVersionMarker(t, run, "checked-calls")
	recordAndReplay(t, run, "verify_expression_tool_node")
}
