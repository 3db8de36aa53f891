package scriptedmodel

import (
	"context"
	"encoding/json"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
)

// converse sends the conversation so far and appends the model's answer, as
// the engine does.
func converse(t *testing.T, c *openai.Client, model string, msgs *[]openai.ChatCompletionMessage) openai.ChatCompletionChoice {
	t.Helper()
	resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: model, Messages: *msgs})
	require.NoError(t, err)
	require.Len(t, resp.Choices, 1)
	*msgs = append(*msgs, resp.Choices[0].Message)
	return resp.Choices[0]
}

func onlyCall(t *testing.T, ch openai.ChatCompletionChoice, name string) openai.ToolCall {
	t.Helper()
	require.Equal(t, openai.FinishReasonToolCalls, ch.FinishReason)
	require.Len(t, ch.Message.ToolCalls, 1)
	require.Equal(t, name, ch.Message.ToolCalls[0].Function.Name)
	return ch.Message.ToolCalls[0]
}

func TestTravelDemoRoundTrip(t *testing.T) {
	s, c := start(t, Scenarios(), "")
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You are a travel agent."},
		user("Book NYC to LAX on 2024-01-15 for me"),
	}

	search := onlyCall(t, converse(t, c, TravelDemo, &msgs), "search_flights")
	require.Equal(t, "call_1_0", search.ID)
	require.JSONEq(t, `{"from":"NYC","to":"LAX","date":"Jan 15, 2024"}`, search.Function.Arguments)
	msgs = append(msgs, toolMsg(search.ID, `{"flights":[{"id":"UA123","price":199},{"id":"DL456"}]}`))

	book := onlyCall(t, converse(t, c, TravelDemo, &msgs), "book_flight")
	require.Equal(t, "call_2_0", book.ID)
	require.JSONEq(t, `{"flight_id":"UA123","passengers":1}`, book.Function.Arguments)
	msgs = append(msgs, toolMsg(book.ID, `{"confirmation":"CONF-42","status":"booked"}`))

	final := onlyCall(t, converse(t, c, TravelDemo, &msgs), "final_output")
	require.JSONEq(t, `{"confirmation":"CONF-42","flight_id":"UA123"}`, final.Function.Arguments)

	require.Equal(t, 3, s.RequestCount())
	require.Len(t, s.Requests()[2].Messages, 6, "the server saw the whole conversation")
}

func TestTravelDemoToolErrorEndsWithContent(t *testing.T) {
	_, c := start(t, Scenarios(), "")
	msgs := []openai.ChatCompletionMessage{user("Book NYC to LAX")}
	search := onlyCall(t, converse(t, c, TravelDemo, &msgs), "search_flights")
	msgs = append(msgs, toolMsg(search.ID, `{"call":{"tool":"search_flights"},"error":"503 upstream down"}`))

	ch := converse(t, c, TravelDemo, &msgs)
	require.Equal(t, openai.FinishReasonStop, ch.FinishReason)
	require.Empty(t, ch.Message.ToolCalls)
	require.Contains(t, ch.Message.Content, "could not complete")
	require.Contains(t, ch.Message.Content, "search_flights")
}

func TestTravelDemoWithNoFlightsEndsWithContent(t *testing.T) {
	_, c := start(t, Scenarios(), "")
	msgs := []openai.ChatCompletionMessage{user("Book NYC to LAX")}
	search := onlyCall(t, converse(t, c, TravelDemo, &msgs), "search_flights")
	msgs = append(msgs, toolMsg(search.ID, `{"flights":[]}`))
	ch := converse(t, c, TravelDemo, &msgs)
	require.Equal(t, openai.FinishReasonStop, ch.FinishReason)
	require.Contains(t, ch.Message.Content, "no flights")
}

func TestFinalOutputScenario(t *testing.T) {
	_, c := start(t, Scenarios(), "")
	msgs := []openai.ChatCompletionMessage{user("42")}
	call := onlyCall(t, converse(t, c, FinalOutput, &msgs), "final_output")
	require.JSONEq(t, `{"answer":"42"}`, call.Function.Arguments)

	msgs = append(msgs, toolMsg(call.ID, `{"call":{"tool":"final_output"},"error":"does not match output_schema"}`))
	ch := converse(t, c, FinalOutput, &msgs)
	require.Equal(t, openai.FinishReasonStop, ch.FinishReason)
	require.Contains(t, ch.Message.Content, "could not complete")
}

// stockQuote is a get_quote result as the builtin answers it.
const stockQuote = `{"symbol":"AAPL","price":243.36,"currency":"USD","change_5d_pct":4.06,"trend_5d":"up"}`

// The stock demo goes by the thought it reads: as it thought it, SELL; once
// a person has edited the thought in the conversation, what the edit says.
func TestStockDemoFollowsTheThoughtItReads(t *testing.T) {
	s, c := start(t, Scenarios(), "")
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You analyse stocks."},
		user("Analyse AAPL and write a report"),
	}
	first := converse(t, c, StockDemo, &msgs)
	quote := onlyCall(t, first, "get_quote")
	require.Equal(t, StockThought, first.Message.Content, "the thought comes with the call")
	require.JSONEq(t, `{"symbol":"AAPL"}`, quote.Function.Arguments)
	msgs = append(msgs, toolMsg(quote.ID, stockQuote))
	asked := len(msgs)

	write := onlyCall(t, converse(t, c, StockDemo, &msgs), "write_report")
	var args struct{ Symbol, Recommendation, Summary string }
	require.NoError(t, json.Unmarshal([]byte(write.Function.Arguments), &args))
	require.Equal(t, "AAPL", args.Symbol)
	require.Equal(t, "SELL", args.Recommendation, "the quote rises, but the thought says SELL")
	require.Contains(t, args.Summary, StockThought)

	// A person edits the thought: the conversation is sent again, whole,
	// with the edited text on the same call.
	edited := append([]openai.ChatCompletionMessage(nil), msgs[:asked]...)
	edited[2].Content = "AAPL is trending up: five rising closes. Recommend BUY."
	write = onlyCall(t, converse(t, c, StockDemo, &edited), "write_report")
	require.NoError(t, json.Unmarshal([]byte(write.Function.Arguments), &args))
	require.Equal(t, "BUY", args.Recommendation)
	require.Contains(t, args.Summary, "five rising closes")
	edited = append(edited, toolMsg(write.ID, `{"report_id":"RPT-123456","symbol":"AAPL","recommendation":"BUY","status":"written"}`))

	final := onlyCall(t, converse(t, c, StockDemo, &edited), "final_output")
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(final.Function.Arguments), &out))
	require.Equal(t, "BUY", out["recommendation"])
	require.Equal(t, "RPT-123456", out["report_id"])
	require.Equal(t, "AAPL", out["symbol"])
	require.Equal(t, args.Summary, out["summary"])
	require.Equal(t, 4, s.RequestCount())
}

func TestStockDemoEndsWithContentWhenItCannotGoOn(t *testing.T) {
	_, c := start(t, Scenarios(), "")
	begin := func() ([]openai.ChatCompletionMessage, openai.ToolCall) {
		msgs := []openai.ChatCompletionMessage{user("Analyse AAPL")}
		return msgs, onlyCall(t, converse(t, c, StockDemo, &msgs), "get_quote")
	}
	cases := map[string]func() []openai.ChatCompletionMessage{
		"a tool error": func() []openai.ChatCompletionMessage {
			msgs, quote := begin()
			return append(msgs, toolMsg(quote.ID, `{"call":{"tool":"get_quote"},"error":"503"}`))
		},
		"a thought recommending nothing": func() []openai.ChatCompletionMessage {
			msgs, quote := begin()
			msgs[1].Content = "AAPL is a company."
			return append(msgs, toolMsg(quote.ID, stockQuote))
		},
		"a quote without a symbol": func() []openai.ChatCompletionMessage {
			msgs, quote := begin()
			return append(msgs, toolMsg(quote.ID, `{}`))
		},
		"a report without an id": func() []openai.ChatCompletionMessage {
			msgs, quote := begin()
			msgs = append(msgs, toolMsg(quote.ID, stockQuote))
			write := onlyCall(t, converse(t, c, StockDemo, &msgs), "write_report")
			return append(msgs, toolMsg(write.ID, `{"status":"written"}`))
		},
		"a person's reply": func() []openai.ChatCompletionMessage {
			msgs, _ := begin()
			return append(msgs, user("A person replied: hello"))
		},
	}
	for name, conversation := range cases {
		t.Run(name, func(t *testing.T) {
			msgs := conversation()
			ch := converse(t, c, StockDemo, &msgs)
			require.Equal(t, openai.FinishReasonStop, ch.FinishReason)
			require.Empty(t, ch.Message.ToolCalls)
			require.Contains(t, ch.Message.Content, "could not complete")
		})
	}
}

func TestRecommendation(t *testing.T) {
	for text, want := range map[string]string{
		StockThought: "SELL",
		"AAPL is trending up: five rising closes. Recommend BUY.": "BUY",
		"recommendation: hold":                              "HOLD",
		"I would not recommend SELL; recommend BUY instead": "BUY",
		"BUY":                      "",
		"recommended: buy":         "",
		"no recommendation at all": "",
		"":                         "",
	} {
		require.Equal(t, want, Recommendation(text), text)
	}
}

// The support chain follows the conversation it is sent: general hands
// the customer over without naming anyone; orders looks the order up and
// names general; refunds refunds the total it reads in the handoff context
// and hands the sign-off over.
func TestSupportChainScripts(t *testing.T) {
	_, c := start(t, Scenarios(), "")
	task := user("Where is my order 5678? It arrived broken, I want my money back.")
	args := func(call openai.ToolCall) map[string]any {
		var a map[string]any
		require.NoError(t, json.Unmarshal([]byte(call.Function.Arguments), &a))
		return a
	}

	msgs := []openai.ChatCompletionMessage{task}
	h := args(onlyCall(t, converse(t, c, SupportGeneral, &msgs), "handoff"))
	require.NotContains(t, h, "to", "general lets the run choose")
	require.Equal(t, "out_of_scope", h["reason"])
	require.Contains(t, h["summary"], "order 5678")

	msgs = []openai.ChatCompletionMessage{task, user("[unstuck] This task was handed over to you by agent general.")}
	lookup := onlyCall(t, converse(t, c, SupportOrders, &msgs), "lookup_order")
	require.JSONEq(t, `{"order":"5678"}`, lookup.Function.Arguments)
	msgs = append(msgs, toolMsg(lookup.ID, `{"order":"5678","status":"delivered","condition":"arrived damaged","total":64}`))
	h = args(onlyCall(t, converse(t, c, SupportOrders, &msgs), "handoff"))
	require.Equal(t, "general", h["to"])
	require.Contains(t, h["suggested_next_action"], "refund of 64 USD for order 5678")

	msgs = []openai.ChatCompletionMessage{task, user(`[unstuck] handed over ... {"tool_records":[{"tool":"lookup_order","output":{"order":"5678","total":64}}]}`)}
	refund := onlyCall(t, converse(t, c, SupportRefunds, &msgs), "issue_refund")
	require.JSONEq(t, `{"order":"5678","amount":64}`, refund.Function.Arguments)
	msgs = append(msgs, toolMsg(refund.ID, `{"refund_id":"RF-123456","order":"5678","amount":64}`))
	h = args(onlyCall(t, converse(t, c, SupportRefunds, &msgs), "handoff"))
	require.NotContains(t, h, "to")
	require.Equal(t, "user_escalation", h["reason"])
	require.Contains(t, h["summary"], "RF-123456")

	// Without a total in the context, or after a failed call, it says so.
	msgs = []openai.ChatCompletionMessage{task, user("no context")}
	require.Contains(t, converse(t, c, SupportRefunds, &msgs).Message.Content, "no order total")
	msgs = []openai.ChatCompletionMessage{task, user("ctx")}
	lookup = onlyCall(t, converse(t, c, SupportOrders, &msgs), "lookup_order")
	msgs = append(msgs, toolMsg(lookup.ID, `{"error":"503 upstream down"}`))
	require.Contains(t, converse(t, c, SupportOrders, &msgs).Message.Content, "lookup_order failed")
	require.Equal(t, "1234", OrderOf("no number here"))
}
