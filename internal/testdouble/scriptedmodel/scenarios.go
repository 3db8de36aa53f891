package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Names of the built-in scenarios, to use as the model name.
const (
	TravelDemo  = "travel-demo"
	StockDemo   = "stock-demo"
	Echo        = "echo"
	FinalOutput = "final-output"
	// The customer-service chain of `unstuck demo handoff`: one model
	// per agent, each agent naming its own.
	SupportGeneral = "support-general"
	SupportOrders  = "support-orders"
	SupportRefunds = "support-refunds"
)

// Scenarios are the built-in scripts, by model name. Each ends with a content
// reply whenever it cannot go on (a tool error, an unexpected result), so a
// run against it always finishes instead of waiting for a turn that never
// comes.
func Scenarios() map[string]Script {
	return map[string]Script{
		TravelDemo:     travelDemo,
		StockDemo:      stockDemo,
		Echo:           echo,
		FinalOutput:    finalOutput,
		SupportGeneral: supportGeneral,
		SupportOrders:  supportOrders,
		SupportRefunds: supportRefunds,
		ConciergeDemo:  concierge,
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

// The customer-service chain (`unstuck demo handoff`, seed 004): the
// general agent hands the customer over without naming anyone; the orders
// agent looks the order up and hands it back to general (which the run
// refuses: general is already in the handoff path), so the refunds agent
// takes it; it refunds the order's total, read from the handoff context,
// and hands the sign-off to a person. Each step follows the conversation it
// is sent, not a count of turns.

var orderNumberPattern = regexp.MustCompile(`\b(\d{3,12})\b`)

// OrderOf is the order number of a task ("1234" when it names none).
func OrderOf(task string) string {
	if m := orderNumberPattern.FindStringSubmatch(task); m != nil {
		return m[1]
	}
	return "1234"
}

// handoffTurn is a call of the engine's handoff tool (to "" lets the run
// choose the agent).
func handoffTurn(to, reason, summary, next string) Turn {
	args := map[string]string{"reason": reason, "summary": summary, "suggested_next_action": next}
	if to != "" {
		args["to"] = to
	}
	return CallTurn("handoff", args)
}

func supportGeneral(req openai.ChatCompletionRequest) Turn {
	if AssistantTurns(req) > 0 {
		return Reply("I could not help: the scripted support demo has no step for this conversation")
	}
	order := OrderOf(Task(req))
	return handoffTurn("", "out_of_scope",
		fmt.Sprintf("The customer asks where order %s is and wants a refund for it.", order),
		fmt.Sprintf("look up order %s status", order))
}

func supportOrders(req openai.ChatCompletionRequest) Turn {
	results := LastToolResults(req)
	if r, ok := failed(results); ok {
		return cannotComplete(r)
	}
	order := OrderOf(Task(req))
	if r, ok := find(results, "lookup_order"); ok {
		var found struct {
			Status    string `json:"status"`
			Condition string `json:"condition"`
			Total     any    `json:"total"`
		}
		if json.Unmarshal([]byte(r.Content), &found) != nil || found.Total == nil {
			return Reply("I could not help: the order look-up has no total: " + r.Content)
		}
		// Back to general, as seed 004's orders agent does: the run
		// refuses it (general is in the handoff path) and goes on to the
		// next candidate able to refund.
		return handoffTurn("general", "out_of_scope",
			fmt.Sprintf("Order %s was %s, %s (total %v USD); the customer wants a refund.", order, found.Status, found.Condition, found.Total),
			fmt.Sprintf("process a refund of %v USD for order %s", found.Total, order))
	}
	if AssistantTurns(req) == 0 {
		return CallTurn("lookup_order", map[string]any{"order": order})
	}
	return Reply("I could not help: the scripted support demo has no step for this conversation")
}

var orderTotalPattern = regexp.MustCompile(`"total":\s*([0-9]+(?:\.[0-9]+)?)`)

func supportRefunds(req openai.ChatCompletionRequest) Turn {
	results := LastToolResults(req)
	if r, ok := failed(results); ok {
		return cannotComplete(r)
	}
	order := OrderOf(Task(req))
	if r, ok := find(results, "issue_refund"); ok {
		var refund struct {
			RefundID any `json:"refund_id"`
			Amount   any `json:"amount"`
		}
		if json.Unmarshal([]byte(r.Content), &refund) != nil || refund.RefundID == nil {
			return Reply("I could not complete the refund: the refund result has no refund_id: " + r.Content)
		}
		return handoffTurn("", "user_escalation",
			fmt.Sprintf("Refund %v of %v USD for order %s issued; a person must sign it off.", refund.RefundID, refund.Amount, order),
			"sign off the refund")
	}
	if AssistantTurns(req) == 0 {
		// The amount is the order's total as the orders agent found it:
		// the handoff context (the last message) carries its look-up.
		var context string
		if n := len(req.Messages); n > 0 {
			context = text(req.Messages[n-1])
		}
		m := orderTotalPattern.FindStringSubmatch(context)
		if m == nil {
			return Reply("I could not complete the refund: the handoff context has no order total")
		}
		amount, _ := strconv.ParseFloat(m[1], 64)
		return CallTurn("issue_refund", map[string]any{"order": order, "amount": amount})
	}
	return Reply("I could not complete the refund: the scripted support demo has no step for this conversation")
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
