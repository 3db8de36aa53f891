package testsuite

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// bookingAPI validates like a real booking API: 422 with a message naming
// the field, as the seed's error patterns do.
func bookingAPI(w http.ResponseWriter, r *http.Request, _ int) {
	var a map[string]any
	_ = json.NewDecoder(r.Body).Decode(&a)
	if _, ok := a["passengers"]; !ok {
		writeJSON(w, 422, map[string]string{"error": "missing required parameter 'passengers'"})
		return
	}
	date, _ := a["date"].(string)
	if _, err := time.Parse("2006-01-02", date); err != nil {
		writeJSON(w, 422, map[string]string{"error": "invalid date format for 'date'"})
		return
	}
	switch a["cabin"] {
	case "economy", "premium_economy", "business", "first":
	default:
		writeJSON(w, 422, map[string]string{"error": "'cabin' must be one of [economy, premium_economy, business, first]"})
		return
	}
	writeJSON(w, 200, map[string]any{"confirmation": "CONF-42", "booked": a})
}

// bookParameters is the book tool's strict schema (YAML at a tool's
// indent): the API of the repair scenarios.
const bookParameters = `    parameters:
      type: object
      required: [flight_id, date, passengers, cabin]
      additionalProperties: false
      properties:
        flight_id: { type: string }
        date: { type: string, format: date }
        passengers: { type: integer, minimum: 1, maximum: 9 }
        cabin: { type: string, enum: [economy, premium_economy, business, first] }
`

var repairConfig = `
model: { base_url: "{{MODEL}}", name: booker }
tools:
  - name: book
    description: Book a flight.
    http: { url: "{{TOOLS}}/book" }
    effect: write
` + bookParameters + `        meals: { type: array, items: { type: string } }
        insured: { type: boolean }
  - name: book_loose
    description: The same API, declared without a schema.
    http: { url: "{{TOOLS}}/book" }
    parameters: { type: object }
agents:
  - { name: booker, instructions: Book flights., tools: [book, book_loose] }
`

// isRepair tells the focused repair request from a conversation turn.
func isRepair(req openaiRequest) bool {
	return len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, activities.RepairPrompt)
}

// bookerScript is the scripted model (a test double): it sends one call,
// then finishes; asked to repair, it infers one passenger from "for me".
func bookerScript(tool string, args map[string]any) scriptedmodel.Script {
	return func(req openaiRequest) scriptedmodel.Turn {
		if isRepair(req) {
			var p struct {
				Task      string         `json:"task"`
				Arguments map[string]any `json:"arguments"`
			}
			_ = json.Unmarshal([]byte(req.Messages[1].Content), &p)
			if strings.Contains(p.Task, "for me") {
				p.Arguments["passengers"] = 1
			}
			return scriptedmodel.CallTurn(req.Tools[0].Function.Name, p.Arguments)
		}
		if scriptedmodel.AssistantTurns(req) == 0 {
			return scriptedmodel.CallTurn(tool, args)
		}
		return scriptedmodel.CallsTurn(scriptedmodel.Call{Name: "final_output", Args: scriptedmodel.LastToolResults(req)[0].Content})
	}
}

func repairStack(t *testing.T, script scriptedmodel.Script) (*stack, *toolServer) {
	tools := newToolServer(t, bookingAPI)
	return newStack(t, strings.ReplaceAll(repairConfig, "{{TOOLS}}", tools.URL), map[string]scriptedmodel.Script{"booker": script}), tools
}

func repairRequests(s *stack) int {
	n := 0
	for _, r := range s.model.Requests() {
		if isRepair(r) {
			n++
		}
	}
	return n
}

// Seed scenario 1: a missing passengers count is inferred as 1 from "for
// me" by one focused model request; no rule could know it.
func TestMissingPassengersInferredFromTheTask(t *testing.T) {
	t.Parallel()
	s, tools := repairStack(t, bookerScript("book", map[string]any{"flight_id": "UA1", "date": "2024-10-26", "cabin": "economy"}))
	run := s.start(workflows.AgentInput{Agent: "booker", Task: "Book UA1 on 2024-10-26 for me"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Contains(t, string(res.Output), "CONF-42")
	require.Equal(t, 1, repairRequests(s))
	book := tools.requests("/book")
	require.Len(t, book, 1, "only repaired arguments reach the tool")
	require.JSONEq(t, `{"flight_id":"UA1","date":"2024-10-26","cabin":"economy","passengers":1}`, book[0].Body)
	rn := nodesOf(s.trace(run), signals.KindRepair)
	require.Len(t, rn, 1)
	require.Contains(t, string(rn[0].Output), `"strategy":"model"`)
	recordAndReplay(t, run, "repair_missing_passengers")
}

// Seed scenario 2: "Oct 26, 2024" and "business class" (and "2" for an
// integer) are repaired by rules, without any model request.
func TestDateAndEnumRepairedWithoutTheModel(t *testing.T) {
	t.Parallel()
	s, tools := repairStack(t, bookerScript("book", map[string]any{
		"flight_id": "UA1", "date": "Oct 26, 2024", "cabin": "business class", "passengers": "2",
	}))
	run := s.start(workflows.AgentInput{Agent: "booker", Task: "Book UA1 on Oct 26, 2024 in business class for two"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Contains(t, string(res.Output), "CONF-42")
	require.Equal(t, 0, repairRequests(s), "no model request for what rules repair")
	require.Equal(t, 2, s.model.RequestCount(), "the two turns of the conversation, nothing more")
	book := tools.requests("/book")
	require.Len(t, book, 1)
	require.JSONEq(t, `{"flight_id":"UA1","date":"2024-10-26","cabin":"business","passengers":2}`, book[0].Body)
	out := string(nodesOf(s.trace(run), signals.KindRepair)[0].Output)
	for _, strategy := range []string{"reformat_date", "correct_enum", "coerce_type"} {
		require.Contains(t, out, strategy)
	}
}

// The same mistakes against a tool declared without a schema: the API's
// 422 messages are parsed into the same repairs, and the call is issued
// again with a new idempotency key.
func TestRejectionsAreParsedIntoRepairs(t *testing.T) {
	t.Parallel()
	s, tools := repairStack(t, bookerScript("book_loose", map[string]any{
		"flight_id": "UA1", "date": "Oct 26, 2024", "cabin": "economy", "passengers": 1,
	}))
	run := s.start(workflows.AgentInput{Agent: "booker", Task: "Book UA1 on Oct 26, 2024"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Contains(t, string(res.Output), "CONF-42")
	book := tools.requests("/book")
	require.Len(t, book, 2)
	require.NotEqual(t, book[0].IdempotencyKey, book[1].IdempotencyKey)
	require.Contains(t, book[1].Body, `"date":"2024-10-26"`)
	require.Equal(t, 0, repairRequests(s))
}

// Seed scenario 3: an unknown tool is reported to the model, never
// retried and never repaired.
func TestUnknownToolIsReportedNeverRetried(t *testing.T) {
	t.Parallel()
	s, tools := repairStack(t, bookerScript("book_hotel", map[string]any{"city": "LAX"}))
	run := s.start(workflows.AgentInput{Agent: "booker", Task: "Book a hotel"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Contains(t, string(res.Output), `unknown tool \"book_hotel\"`)
	require.Empty(t, tools.requests("/book"))
	require.Equal(t, 0, repairRequests(s))
	require.Empty(t, nodesOf(s.trace(run), signals.KindRepair))
}

// A step whose first call needs a repair (one by rule, one by the model)
// and whose other call does not: the other call does not wait. The
// history is kept, so a later change of this order is caught by replay.
func TestRepairsInAParallelStep(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "{{MODEL}}", name: mixed }
tools:
  - { name: count, builtin: echo, parameters: { type: object, required: [n], properties: { n: { type: integer } } } }
  - { name: note, builtin: echo, parameters: { type: object } }
agents:
  - { name: mixed, instructions: Count., tools: [count, note] }
`
	script := func(req openaiRequest) scriptedmodel.Turn {
		if isRepair(req) {
			return scriptedmodel.CallTurn("count", map[string]any{"n": 3})
		}
		if scriptedmodel.AssistantTurns(req) == 0 {
			return scriptedmodel.CallsTurn(
				scriptedmodel.NewCall("count", map[string]any{"n": "2"}),     // a rule repairs it
				scriptedmodel.NewCall("count", map[string]any{"n": "three"}), // the model repairs it
				scriptedmodel.NewCall("note", map[string]any{"text": "hi"}),  // needs nothing
			)
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"ok": true})
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"mixed": script})
	run := s.start(workflows.AgentInput{Agent: "mixed", Task: "count"})
	_, err := s.result(run)
	require.NoError(t, err)
	calls := nodesOf(s.trace(run), signals.KindCall)
	require.JSONEq(t, `{"n":2}`, string(calls[0].Args))
	require.JSONEq(t, `{"n":3}`, string(calls[1].Args))
	require.Equal(t, 1, repairRequests(s))
	recordAndReplay(t, run, "parallel_step_repairs")
}
