package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Names of the built-in scenarios, to use as the model name.
const (
	TravelDemo  = "travel-demo"
	StockDemo   = "stock-demo"
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
		StockDemo:   stockDemo,
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

// StockThought is the stock demo's first thought, wrong on purpose (the
// quote it then looks up shows a rising week), for a person to edit.
const StockThought = "AAPL is trending down, recommend SELL."

// stockDemo analyses AAPL for `unstuck demo edit`. It thinks first
// (StockThought) while it looks the quote up, then writes a report
// recommending what that thought recommends, whatever the quote says, then
// ends with the report. The thought it goes by is the one it reads in the
// conversation it is sent, so a person who edits the thought (the edit
// message) changes the report: after an edit saying "recommend BUY" it
// writes BUY.
func stockDemo(req openai.ChatCompletionRequest) Turn {
	results := LastToolResults(req)
	if r, ok := failed(results); ok {
		return cannotComplete(r)
	}
	if r, ok := find(results, "write_report"); ok {
		var report struct {
			ReportID       any `json:"report_id"`
			Symbol         any `json:"symbol"`
			Recommendation any `json:"recommendation"`
		}
		var call struct {
			Summary any `json:"summary"`
		}
		_ = json.Unmarshal([]byte(r.Args), &call)
		if json.Unmarshal([]byte(r.Content), &report) != nil || report.ReportID == nil {
			return Reply("I could not complete the analysis: the report result has no report_id: " + r.Content)
		}
		return CallTurn("final_output", map[string]any{
			"symbol": report.Symbol, "recommendation": report.Recommendation, "report_id": report.ReportID, "summary": call.Summary,
		})
	}
	if r, ok := find(results, "get_quote"); ok {
		thought := ThoughtOf(req, r.CallID)
		rec := Recommendation(thought)
		if rec == "" {
			return Reply(fmt.Sprintf("I could not complete the analysis: my thought %q recommends neither BUY, HOLD nor SELL", thought))
		}
		var quote struct {
			Symbol string `json:"symbol"`
			Price  any    `json:"price"`
			Change any    `json:"change_5d_pct"`
		}
		if json.Unmarshal([]byte(r.Content), &quote) != nil || quote.Symbol == "" {
			return Reply("I could not complete the analysis: the quote has no symbol: " + r.Content)
		}
		return CallTurn("write_report", map[string]any{
			"symbol":         quote.Symbol,
			"recommendation": rec,
			"summary":        fmt.Sprintf("%s at %v USD, %v%% over 5 sessions. %s", quote.Symbol, quote.Price, quote.Change, thought),
		})
	}
	if AssistantTurns(req) == 0 {
		return Turn{Content: StockThought, Calls: []Call{NewCall("get_quote", map[string]any{"symbol": "AAPL"})}}
	}
	return Reply("I could not complete the analysis: the scripted stock demo has no step for this conversation")
}

var recommendationPattern = regexp.MustCompile(`(?i)\brecommend(?:s|ing|ation)?\b[\s:,-]*\b(buy|hold|sell)\b`)

// Recommendation is what a text recommends, "BUY", "HOLD" or "SELL", as the
// last "recommend X" in it says; "" when it recommends none of them.
func Recommendation(text string) string {
	m := recommendationPattern.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return ""
	}
	return strings.ToUpper(m[len(m)-1][1])
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
