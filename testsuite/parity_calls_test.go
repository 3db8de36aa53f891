package testsuite

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Replies that answer nothing or are cut off, calls with repairable
// arguments, and loops on a failing tool, in both run shapes. Each cell
// is served by the worker binary on the real server, with a scripted
// model and HTTP tools on loopback of its own.

// llmOnce is the graph of an agent whose llm node is left by its one
// edge: a reply that answers nothing must bring the walk back to the node
// itself, since no edge leads there.
const llmOnce = `graph: { start: L, nodes: { L: { llm: true }, E: { end: true } }, edges: [ { from: L, to: E } ] }`

// twinsWalking is twins with the graph agent walking g.
func twinsWalking(name, spec, g string) string {
	return fmt.Sprintf("  - { name: %s-%s, %s }\n  - { name: %s-%s, %s, %s }\n", freeForm, name, spec, graph, name, spec, g)
}

// holdGraph goes round H while hold fails; its way out to W is listed
// after the way round, so only the ladder's explore takes it.
const holdGraph = `graph: { start: H,
    nodes: {
      H: { tool: hold, args: { seat: "12A" }, output_path: "†state.held" },
      W: { tool: waitlist, args: { seat: "12A" }, output_path: "†state.waitlisted" },
      E: { end: true, output: "†state.held || †state.waitlisted" } },
    edges: [ { from: H, to: H, when: "!ok" }, { from: H, to: W, when: "!ok" }, { from: H, to: E }, { from: W, to: E } ] }`

// callsConfig has, for each cell, a free-form agent and its graph twin,
// named <shape>-<name>; {{TOOLS}} is the tool server. book's schema takes
// what the repair rules mend; reserve is down (503, one attempt a call)
// and has a fallback; hold is refused (409) and has none.
var callsConfig = `
model: { base_url: "{{MODEL}}", name: calls }
tools:
  - { name: note, http: { url: "{{TOOLS}}/note" }, parameters: { type: object } }
  - name: book
    http: { url: "{{TOOLS}}/book" }
` + bookParameters + `  - { name: reserve, fallback: reserve_backup, retry: { max_attempts: 1 }, http: { url: "{{TOOLS}}/reserve" }, parameters: { type: object } }
  - { name: reserve_backup, http: { url: "{{TOOLS}}/backup" }, parameters: { type: object } }
  - { name: hold, http: { url: "{{TOOLS}}/hold" }, parameters: { type: object } }
  - { name: waitlist, http: { url: "{{TOOLS}}/waitlist" }, parameters: { type: object } }
agents:
  - name: graph-repair-node
    tools: [book]
    graph:
      start: B
      nodes:
        B: { tool: book, args: { flight_id: UA1, date: "†input.date", passengers: "†input.passengers", cabin: "†input.cabin" }, output_path: "†state.booking" }
        E: { end: true, output: "†state.booking" }
      edges: [ { from: B, to: E } ]
  - name: graph-fallback
    tools: [reserve]
    policies: { loop: { window: 16, repeats: 3 }, breaker: { failures: 50 }, escalation: [retry, substitute, stop] }
    graph:
      start: R
      nodes: { R: { tool: reserve, args: { seat: "12A" }, output_path: "†state.reserved" }, E: { end: true, output: "†state.reserved" } }
      edges: [ { from: R, to: E, when: "ok" }, { from: R, to: R } ]
  - { name: free-form-fallback, instructions: Reserve seat 12A., tools: [reserve], policies: { loop: { window: 16, repeats: 3 }, breaker: { failures: 50 }, escalation: [retry, substitute, stop] } }
` + twinsWalking("empty", "instructions: Answer., tools: [note]", llmOnce) +
	twinsWalking("refused", "instructions: Answer., tools: [note]", llmOnce) +
	twins("cut-off", "instructions: Write., tools: [note], model: { context_window: 8000, max_output_tokens: 2000 }") +
	twins("repair", "instructions: Book flights., tools: [book]") +
	twinsWalking("explore", "instructions: Hold seat 12A., tools: [hold, waitlist], policies: { loop: { window: 16, repeats: 3 }, escalation: [retry, explore, stop] }", holdGraph) +
	twinsWalking("stop", "instructions: Hold seat 12A., tools: [hold, waitlist], policies: { loop: { window: 16, repeats: 3 }, escalation: [stop] }", holdGraph)

// newCallsToolServer: book validates like a booking API (bookingAPI);
// reserve answers 503 and hold 409, always; the backup reserves and the
// waitlist lists; note notes.
func newCallsToolServer(t *testing.T) *toolServer {
	return newToolServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/book":
			bookingAPI(w, r, n)
		case "/reserve":
			writeJSON(w, 503, map[string]string{"error": "reservations are down"})
		case "/hold":
			writeJSON(w, 409, map[string]string{"error": "seat already held"})
		case "/backup":
			writeJSON(w, 200, map[string]string{"reserved": "by backup"})
		case "/waitlist":
			writeJSON(w, 200, map[string]string{"waitlisted": "12A"})
		default:
			writeJSON(w, 200, map[string]string{"noted": readAll(r)})
		}
	})
}

// startCallsRun starts in on a worker binary of its own, with script as
// the model (none: the model is never asked).
func startCallsRun(t *testing.T, in workflows.AgentInput, script scriptedmodel.Script) (*stack, *toolServer, client.WorkflowRun) {
	tools := newCallsToolServer(t)
	scripts := map[string]scriptedmodel.Script{}
	if script != nil {
		scripts["calls"] = script
	}
	s := newBinaryStack(t, strings.ReplaceAll(callsConfig, "{{TOOLS}}", tools.URL), scripts)
	return s, tools, s.start(in)
}

func TestParityOfRepliesCallsAndLoops(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells,
			parityCell{capability: "empty reply", shape: shape, run: func(t *testing.T) { askAgainAfterAnEmptyReply(t, shape) }},
			parityCell{capability: "refused reply", shape: shape, run: func(t *testing.T) { askAgainAfterARefusal(t, shape) }},
			parityCell{capability: "cut-off reply", shape: shape, run: func(t *testing.T) { askAgainWithRoomForTheCall(t, shape) }},
			parityCell{capability: "loop escape", shape: shape, variant: "fallback", run: func(t *testing.T) { escapeByTheFallback(t, shape) }},
			parityCell{capability: "loop escape", shape: shape, variant: "explore", run: func(t *testing.T) { escapeByExploring(t, shape) }},
			parityCell{capability: "loop escape", shape: shape, variant: "stop", run: func(t *testing.T) { stopInTheLoop(t, shape) }},
		)
	}
	cells = append(cells,
		parityCell{capability: "argument repair", shape: freeForm, run: func(t *testing.T) { repairTheModelsCall(t, freeForm) }},
		parityCell{capability: "argument repair", shape: graph, variant: "llm node", run: func(t *testing.T) { repairTheModelsCall(t, graph) }},
		parityCell{capability: "argument repair", shape: graph, variant: "tool node", run: repairAToolNodesArgs},
	)
	runParity(t, cells)
}

// askAgainAfterAnEmptyReply: the model's first reply has neither content
// nor calls; it is told so, asked again, and finishes.
func askAgainAfterAnEmptyReply(t *testing.T, shape string) {
	s, _, run := startCallsRun(t, workflows.AgentInput{Agent: shape + "-empty", Task: "answer"},
		scriptedmodel.Sequence(scriptedmodel.Turn{}, finalOutput(map[string]bool{"ok": true})))
	failed := requireToldAndAskedAgain(t, s, run, shape, "[empty reply]", "the reply was empty")
	require.JSONEq(t, `""`, string(failed.Output))
}

// askAgainAfterARefusal: the same with a refusal.
func askAgainAfterARefusal(t *testing.T, shape string) {
	const refusal = "I can't help with that."
	s, _, run := startCallsRun(t, workflows.AgentInput{Agent: shape + "-refused", Task: "answer"},
		scriptedmodel.Sequence(scriptedmodel.Turn{Refusal: refusal}, finalOutput(map[string]bool{"ok": true})))
	failed := requireToldAndAskedAgain(t, s, run, shape, "[refused] "+refusal, "the reply was a refusal")
	require.JSONEq(t, `"`+refusal+`"`, string(failed.Output))
}

// requireToldAndAskedAgain checks a run whose first reply answered
// nothing: the next request carries that reply as carried and what the
// run told the model (told), the second reply's output completes it (a
// graph's llm node visited again, not left by its edge), and answers the
// failed output node that recorded the first reply.
func requireToldAndAskedAgain(t *testing.T, s *stack, run client.WorkflowRun, shape, carried, told string) signals.Node {
	t.Helper()
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"ok": true}`, string(res.Output), "the second reply's output, not the graph's end over an empty State")
	require.Empty(t, res.Escalations, "one reply that answers nothing is not a loop")

	reqs := s.model.Requests()
	require.Len(t, reqs, 2, "asked once more")
	msgs := reqs[1].Messages
	last := len(msgs) - 1
	require.Equal(t, openai.ChatMessageRoleAssistant, msgs[last-1].Role)
	require.Equal(t, carried, msgs[last-1].Content)
	require.Equal(t, openai.ChatMessageRoleUser, msgs[last].Role)
	require.Contains(t, msgs[last].Content, told)

	tr := s.trace(run)
	outputs := nodesOf(tr, signals.KindOutput)
	require.Len(t, outputs, 2)
	require.Equal(t, signals.StatusFailed, outputs[0].Status)
	require.Contains(t, outputs[0].Error, told)
	require.Equal(t, signals.StatusCompleted, outputs[1].Status)
	if shape == graph {
		requests := nodesOf(tr, signals.KindRequest)
		require.Len(t, requests, 2)
		for _, n := range append(requests, outputs[0]) {
			require.Equal(t, "L", n.GraphNode, "both replies at the llm node: %s", n.ID)
		}
	}
	return outputs[0]
}

// writeWhenThereIsRoom (a test double) writes a note whose arguments its
// first reply cuts off, unless asked with a reply bound; it finishes once
// the note is written.
func writeWhenThereIsRoom(req openaiRequest) scriptedmodel.Turn {
	switch {
	case len(scriptedmodel.LastToolResults(req)) > 0:
		return finalOutput(map[string]bool{"done": true})
	case req.MaxCompletionTokens == 0:
		return scriptedmodel.Turn{FinishReason: "length", Calls: []scriptedmodel.Call{{Name: "note", Args: `{"text": "a long para`}}}
	}
	return scriptedmodel.CallTurn("note", map[string]any{"text": "a long paragraph"})
}

// askAgainWithRoomForTheCall: a reply cut off inside a call's arguments
// is asked again under the same request with the model's
// max_output_tokens, and the whole call runs once.
func askAgainWithRoomForTheCall(t *testing.T, shape string) {
	s, tools, run := startCallsRun(t, workflows.AgentInput{Agent: shape + "-cut-off", Task: "write"}, writeWhenThereIsRoom)
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))

	reqs := s.model.Requests()
	require.Len(t, reqs, 3, "cut off, asked again, finished")
	require.Zero(t, reqs[0].MaxCompletionTokens)
	require.Equal(t, 2000, reqs[1].MaxCompletionTokens, "asked again with the model's max_output_tokens")
	notes := tools.requests("/note")
	require.Len(t, notes, 1, "the whole call ran once")
	require.JSONEq(t, `{"text": "a long paragraph"}`, notes[0].Body)

	tr := s.trace(run)
	requests := nodesOf(tr, signals.KindRequest)
	require.Len(t, requests, 2, "the cut-off reply was asked again under its own request")
	var rec struct {
		LongerReply int `json:"longer_reply"`
	}
	require.NoError(t, json.Unmarshal(requests[0].Output, &rec))
	require.Equal(t, 2000, rec.LongerReply)
	require.JSONEq(t, `{"text": "a long paragraph"}`, string(nodesOf(tr, signals.KindCall)[0].Args))
}

// badBooking is a booking as models get it wrong: the passengers as
// text, the date as people write it, the cabin capitalised.
const badBooking = `{"flight_id": "UA1", "date": "Oct 26, 2024", "passengers": "2", "cabin": "Business"}`

// repairedBooking is badBooking as the rules mend it.
const repairedBooking = `{"flight_id": "UA1", "date": "2024-10-26", "passengers": 2, "cabin": "business"}`

// repairTheModelsCall: the model's call with badBooking is repaired by
// rule, and the tool receives repairedBooking.
func repairTheModelsCall(t *testing.T, shape string) {
	var bad map[string]any
	require.NoError(t, json.Unmarshal([]byte(badBooking), &bad))
	s, tools, run := startCallsRun(t, workflows.AgentInput{Agent: shape + "-repair", Task: "Book UA1 on Oct 26, 2024 in business for two"},
		bookerScript("book", bad))
	requireRepairedByRule(t, s, tools, run)
	require.Equal(t, 2, s.model.RequestCount(), "the call, then the output: nothing asked about the arguments")
}

// repairAToolNodesArgs: a tool node's arguments, referenced from an
// input that has badBooking's values, are repaired by rule as a model's
// call is, and the tool receives repairedBooking.
func repairAToolNodesArgs(t *testing.T) {
	s, tools, run := startCallsRun(t, workflows.AgentInput{Agent: "graph-repair-node", Task: "book",
		Input: json.RawMessage(badBooking)}, nil)
	requireRepairedByRule(t, s, tools, run)
	require.Zero(t, s.model.RequestCount(), "rules alone, no model")
}

// requireRepairedByRule checks that run completed with the booking made
// from repairedBooking, the one request the tool saw, and that the trace
// records the rules that mended it.
func requireRepairedByRule(t *testing.T, s *stack, tools *toolServer, run client.WorkflowRun) {
	t.Helper()
	res, err := s.result(run)
	require.NoError(t, err)
	require.Contains(t, string(res.Output), "CONF-42")
	require.Zero(t, repairRequests(s), "no model request for what rules repair")
	book := tools.requests("/book")
	require.Len(t, book, 1, "only repaired arguments reach the tool")
	require.JSONEq(t, repairedBooking, book[0].Body)

	tr := s.trace(run)
	require.JSONEq(t, repairedBooking, string(nodesOf(tr, signals.KindCall)[0].Args), "the call ran with the repaired arguments")
	repairs := nodesOf(tr, signals.KindRepair)
	require.Len(t, repairs, 1)
	for _, strategy := range []string{"reformat_date", "correct_enum", "coerce_type"} {
		require.Contains(t, string(repairs[0].Output), `"strategy":"`+strategy+`"`)
	}
}

// callUntilOK (a test double) calls tool for seat 12A until a call
// succeeds, then answers its result; once told its calls are blocked, it
// calls instead (unless "").
func callUntilOK(tool, instead string) scriptedmodel.Script {
	seat := map[string]any{"seat": "12A"}
	return func(req openaiRequest) scriptedmodel.Turn {
		if res := scriptedmodel.LastToolResults(req); len(res) == 1 && !res[0].IsError() {
			return scriptedmodel.CallsTurn(scriptedmodel.Call{Name: "final_output", Args: res[0].Content})
		}
		if instead != "" && toldBlocked(req) {
			return scriptedmodel.CallTurn(instead, seat)
		}
		return scriptedmodel.CallTurn(tool, seat)
	}
}

// toldBlocked says whether the explore rung told the model its calls
// are blocked.
func toldBlocked(req openaiRequest) bool {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleUser && strings.Contains(m.Content, "are now blocked") {
			return true
		}
	}
	return false
}

// rungsOf are the actions of escalations, in order.
func rungsOf(escalations []workflows.Escalation) []string {
	var rungs []string
	for _, e := range escalations {
		rungs = append(rungs, e.Action)
	}
	return rungs
}

// escapeByTheFallback: reserve is down; its loop climbs past retry, which
// does not bring it back, to substitute, whose fallback reserves.
func escapeByTheFallback(t *testing.T, shape string) {
	s, tools, run := startCallsRun(t, workflows.AgentInput{Agent: shape + "-fallback", Task: "reserve 12A"}, callUntilOK("reserve", ""))
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"reserved": "by backup"}`, string(res.Output))
	require.Equal(t, []string{"retry", "substitute"}, rungsOf(res.Escalations))
	require.Len(t, tools.requests("/reserve"), 6, "a loop of three before each rung")
	require.Len(t, tools.requests("/backup"), 1)

	tr := s.trace(run)
	require.Len(t, nodesOf(tr, signals.KindEscalation), 2)
	var served []signals.Node
	for _, c := range nodesOf(tr, signals.KindCall) {
		if c.FallbackOf != "" {
			served = append(served, c)
		}
	}
	require.Len(t, served, 1)
	require.Equal(t, "reserve_backup", served[0].Tool, "the tool that ran")
	require.Equal(t, "reserve", served[0].FallbackOf, "the tool asked for")
	require.Equal(t, 1, s.status(run).Fallbacks)
}

// escapeByExploring: hold is refused; retry cannot cure a refusal, so
// the loop goes to explore, which leaves it (the graph by its way out to
// W, the model told its calls are blocked), and the seat is waitlisted.
func escapeByExploring(t *testing.T, shape string) {
	s, tools, run := startCallsRun(t, workflows.AgentInput{Agent: shape + "-explore", Task: "hold 12A"}, callUntilOK("hold", "waitlist"))
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"waitlisted": "12A"}`, string(res.Output))
	require.Equal(t, []string{"explore"}, rungsOf(res.Escalations), "no retry of a refusal")
	require.Len(t, tools.requests("/hold"), 3, "left at the loop's third repetition")
	require.Len(t, tools.requests("/waitlist"), 1)
	require.Len(t, s.status(run).Loops, 1)
	esc := nodesOf(s.trace(run), signals.KindEscalation)
	require.Len(t, esc, 1)
	require.Contains(t, string(esc[0].Args), `"rung":"explore"`)
}

// stopInTheLoop: hold is refused and the ladder has only stop; the run
// stops with a report naming the loop.
func stopInTheLoop(t *testing.T, shape string) {
	s, tools, run := startCallsRun(t, workflows.AgentInput{Agent: shape + "-stop", Task: "hold 12A"}, callUntilOK("hold", ""))
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Contains(t, rep.Reason, "stuck in a")
	require.Contains(t, rep.Reason, "loop of period")
	require.Equal(t, []string{"stop"}, rungsOf(rep.Escalations))
	require.Len(t, tools.requests("/hold"), 3, "stopped at the loop's third repetition")
	require.Empty(t, tools.requests("/waitlist"))
	require.Len(t, s.status(run).Loops, 1)
}
