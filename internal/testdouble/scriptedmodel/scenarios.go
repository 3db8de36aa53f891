package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Names of the built-in scenarios, to use as the model name.
const (
	TravelDemo  = "travel-demo"
	Echo        = "echo"
	FinalOutput = "final-output"
)

// Scenarios are the built-in scripts, by model name. Each ends with a content
// reply whenever it cannot go on (a tool error, an unexpected result), so a
// run against it always finishes instead of waiting for a turn that never
// comes.
func Scenarios() map[string]Script {
	return map[string]Script{
		TravelDemo:  travelDemo,
		Echo:        echo,
		FinalOutput: finalOutput,
	}
}

// echo answers "echo: <task>", the smallest run there is.
func echo(req openai.ChatCompletionRequest) Turn {
	return Reply("echo: " + Task(req))
}

// finalOutput ends the run through the reserved final_output tool with
// {"answer": <task>}.
func finalOutput(req openai.ChatCompletionRequest) Turn {
	if r, ok := failed(LastToolResults(req)); ok {
		return cannotComplete(r)
	}
	return CallTurn("final_output", map[string]any{"answer": Task(req)})
}

// travelDemo searches flights, books the first one and reports the booking.
// The step is chosen from the previous turn's tool results rather than by
// counting turns, so the script follows the engine when it substitutes a
// fallback tool (book_flight_backup answers as book_flight would).
func travelDemo(req openai.ChatCompletionRequest) Turn {
	results := LastToolResults(req)
	if r, ok := failed(results); ok {
		return cannotComplete(r)
	}
	if r, ok := find(results, "book_flight"); ok {
		var booking struct {
			Confirmation any `json:"confirmation"`
			FlightID     any `json:"flight_id"`
		}
		var call struct {
			FlightID any `json:"flight_id"`
		}
		_ = json.Unmarshal([]byte(r.Args), &call)
		if json.Unmarshal([]byte(r.Content), &booking) != nil || booking.Confirmation == nil {
			return Reply("I could not complete the booking: the booking result has no confirmation: " + r.Content)
		}
		if call.FlightID == nil { // arguments not parseable: trust the booking
			call.FlightID = booking.FlightID
		}
		return CallTurn("final_output", map[string]any{"confirmation": booking.Confirmation, "flight_id": call.FlightID})
	}
	if r, ok := find(results, "search_flights"); ok {
		var found struct {
			Flights []struct {
				ID any `json:"id"`
			} `json:"flights"`
		}
		if json.Unmarshal([]byte(r.Content), &found) != nil || len(found.Flights) == 0 || found.Flights[0].ID == nil {
			return Reply("I could not complete the booking: the search found no flights: " + r.Content)
		}
		return CallTurn("book_flight", map[string]any{"flight_id": found.Flights[0].ID, "passengers": 1})
	}
	if AssistantTurns(req) == 0 {
		// The date is written as people write it, as models often do, so
		// the demo shows unstuck repairing an argument without a model.
		return CallTurn("search_flights", map[string]any{"from": "NYC", "to": "LAX", "date": "Jan 15, 2024"})
	}
	// Something other than a tool result followed the last turn (a human
	// reply, say): the scripted flow has no step for it, so end plainly.
	return Reply("I could not complete the booking: the scripted travel demo has no step for this conversation")
}

// failed is the first error among results.
func failed(results []ToolResult) (ToolResult, bool) {
	for _, r := range results {
		if r.IsError() {
			return r, true
		}
	}
	return ToolResult{}, false
}

// find is the first result of a tool whose name starts with prefix, so that
// fallback tools named after the original count as it.
func find(results []ToolResult, prefix string) (ToolResult, bool) {
	for _, r := range results {
		if strings.HasPrefix(r.Name, prefix) {
			return r, true
		}
	}
	return ToolResult{}, false
}

// cannotComplete is the content reply ending a run after a tool error.
func cannotComplete(r ToolResult) Turn {
	return Reply(fmt.Sprintf("I could not complete the task: %s failed: %s", r.Name, r.Content))
}
