package scriptedmodel

import (
	"context"
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
