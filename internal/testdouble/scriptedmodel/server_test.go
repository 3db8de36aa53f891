package scriptedmodel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
)

func TestContentReplyIsLabelledScripted(t *testing.T) {
	_, c := start(t, Scenarios(), "")
	resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model:    Echo,
		Messages: []openai.ChatCompletionMessage{user("say hi")},
	})
	require.NoError(t, err)
	require.Equal(t, "true", resp.Header().Get(Header))
	require.Equal(t, Fingerprint, resp.SystemFingerprint)
	require.Equal(t, Echo, resp.Model)
	require.Equal(t, "chat.completion", resp.Object)
	require.Len(t, resp.Choices, 1)
	require.Equal(t, openai.FinishReasonStop, resp.Choices[0].FinishReason)
	require.Equal(t, openai.ChatMessageRoleAssistant, resp.Choices[0].Message.Role)
	require.Equal(t, "echo: say hi", resp.Choices[0].Message.Content)
	require.Empty(t, resp.Choices[0].Message.ToolCalls)
	require.Positive(t, resp.Usage.PromptTokens)
	require.Positive(t, resp.Usage.CompletionTokens)
	require.Equal(t, resp.Usage.PromptTokens+resp.Usage.CompletionTokens, resp.Usage.TotalTokens)
}

func TestFallbackServesUnknownModelsAndEchoesTheModel(t *testing.T) {
	_, c := start(t, Scenarios(), Echo)
	resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model:    "gpt-4o-mini",
		Messages: []openai.ChatCompletionMessage{user("x")},
	})
	require.NoError(t, err)
	require.Equal(t, "gpt-4o-mini", resp.Model)
	require.Equal(t, "echo: x", resp.Choices[0].Message.Content)
}

func TestUnknownModelIs404(t *testing.T) {
	_, c := start(t, Scenarios(), "")
	_, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model:    "gpt-4o-mini",
		Messages: []openai.ChatCompletionMessage{user("x")},
	})
	var apiErr *openai.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, http.StatusNotFound, apiErr.HTTPStatusCode)
	require.Equal(t, "model_not_found", apiErr.Code)
	require.Contains(t, apiErr.Message, "gpt-4o-mini")
	require.Contains(t, apiErr.Message, "echo, final-output, stock-demo, support-general, support-orders, support-refunds, travel-demo")
}

func TestStartRefusesAnUnknownFallback(t *testing.T) {
	_, err := Start("127.0.0.1:0", Scenarios(), "nope", WithLogf(t.Logf))
	require.ErrorContains(t, err, `"nope"`)
}

func TestFailNextAnswersTheStatusWithRetryAfter(t *testing.T) {
	s, c := start(t, Scenarios(), "")
	s.FailNext(2, http.StatusTooManyRequests)
	req := openai.ChatCompletionRequest{Model: Echo, Messages: []openai.ChatCompletionMessage{user("x")}}

	// First through the real client: the error it surfaces.
	_, err := c.CreateChatCompletion(context.Background(), req)
	var apiErr *openai.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, http.StatusTooManyRequests, apiErr.HTTPStatusCode)
	require.Equal(t, "rate_limit_exceeded", apiErr.Code)

	// Then raw, because the client does not expose headers of errors.
	body, err := json.Marshal(req)
	require.NoError(t, err)
	raw, err := http.Post(s.URL()+"/chat/completions", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer raw.Body.Close()
	require.Equal(t, http.StatusTooManyRequests, raw.StatusCode)
	require.Equal(t, "1", raw.Header.Get("Retry-After"))
	require.Equal(t, "true", raw.Header.Get(Header))
	var e openai.ErrorResponse
	require.NoError(t, json.NewDecoder(raw.Body).Decode(&e))
	require.Equal(t, "requests", e.Error.Type)

	// The outage is over: the script answers again.
	resp, err := c.CreateChatCompletion(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, "echo: x", resp.Choices[0].Message.Content)
	require.Equal(t, 3, s.RequestCount())
}

func TestScriptedErrorTurn(t *testing.T) {
	s, c := start(t, map[string]Script{"flaky": Sequence(
		Turn{Status: http.StatusServiceUnavailable, Message: "overloaded", RetryAfter: 1500 * time.Millisecond},
	)}, "")
	_, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "flaky"})
	var apiErr *openai.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, http.StatusServiceUnavailable, apiErr.HTTPStatusCode)
	require.Equal(t, "overloaded", apiErr.Message)
	require.Equal(t, "server_error", apiErr.Type)

	raw, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"flaky"}`))
	require.NoError(t, err)
	defer raw.Body.Close()
	require.Equal(t, "2", raw.Header.Get("Retry-After"), "rounded up to whole seconds")
}

func TestBadJSONIs400(t *testing.T) {
	s, _ := start(t, Scenarios(), "")
	raw, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":`))
	require.NoError(t, err)
	defer raw.Body.Close()
	require.Equal(t, http.StatusBadRequest, raw.StatusCode)
	require.Equal(t, "true", raw.Header.Get(Header))
	var e openai.ErrorResponse
	require.NoError(t, json.NewDecoder(raw.Body).Decode(&e))
	require.Equal(t, "invalid_request_error", e.Error.Type)
	require.Equal(t, 0, s.RequestCount(), "a body that is not a request is not recorded")
}

func TestInvalidJSONArgumentsPassThroughVerbatim(t *testing.T) {
	const bad = `{"flight_id": "UA123",` // truncated on purpose
	_, c := start(t, map[string]Script{"bad-args": Sequence(
		CallsTurn(Call{Name: "book_flight", Args: bad}, NewCall("search_flights", map[string]string{"from": "NYC"})),
	)}, "")
	resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "bad-args"})
	require.NoError(t, err)
	calls := resp.Choices[0].Message.ToolCalls
	require.Len(t, calls, 2)
	require.Equal(t, bad, calls[0].Function.Arguments)
	require.Equal(t, "call_1_0", calls[0].ID)
	require.Equal(t, "call_1_1", calls[1].ID)
	require.Equal(t, openai.ToolTypeFunction, calls[1].Type)
	require.JSONEq(t, `{"from":"NYC"}`, calls[1].Function.Arguments)
	require.Equal(t, openai.FinishReasonToolCalls, resp.Choices[0].FinishReason)
}

func TestRequestsAreRecordedAsCopies(t *testing.T) {
	s, c := start(t, Scenarios(), "")
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "search_flights", Parameters: json.RawMessage(`{"type":"object"}`),
	}}}
	for _, task := range []string{"one", "two"} {
		_, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
			Model: Echo, Messages: []openai.ChatCompletionMessage{user(task)}, Tools: tools,
		})
		require.NoError(t, err)
	}
	reqs := s.Requests()
	require.Len(t, reqs, 2)
	require.Equal(t, 2, s.RequestCount())
	require.Equal(t, "one", Task(reqs[0]))
	require.Equal(t, "two", Task(reqs[1]))
	require.Equal(t, "search_flights", reqs[1].Tools[0].Function.Name)

	reqs[0].Messages[0].Content = "changed"
	require.Equal(t, "one", Task(s.Requests()[0]), "callers get their own copies")
}

func TestDelayEndsWhenTheClientGivesUp(t *testing.T) {
	_, c := start(t, map[string]Script{"slow": Sequence(Turn{Content: "late", Delay: time.Minute})}, "")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "slow"})
	require.True(t, errors.Is(err, context.DeadlineExceeded), "got %v", err)
	require.Less(t, time.Since(began), 10*time.Second)
}

func TestDelayThenAnswer(t *testing.T) {
	_, c := start(t, map[string]Script{"slow": Sequence(Turn{Content: "late", Delay: 50 * time.Millisecond})}, "")
	began := time.Now()
	resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "slow"})
	require.NoError(t, err)
	require.Equal(t, "late", resp.Choices[0].Message.Content)
	require.GreaterOrEqual(t, time.Since(began), 50*time.Millisecond)
}

func TestScriptPanicIs500(t *testing.T) {
	_, c := start(t, map[string]Script{"broken": func(openai.ChatCompletionRequest) Turn {
		return CallTurn("f", make(chan int)) // cannot be marshalled
	}}, "")
	_, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "broken"})
	var apiErr *openai.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, http.StatusInternalServerError, apiErr.HTTPStatusCode)
	require.Contains(t, apiErr.Message, "script panicked")
}

func TestModelsListsScripts(t *testing.T) {
	_, c := start(t, Scenarios(), "")
	list, err := c.ListModels(context.Background())
	require.NoError(t, err)
	var ids []string
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	require.Equal(t, []string{ConciergeDemo, Echo, FinalOutput, StockDemo, SupportGeneral, SupportOrders, SupportRefunds, TravelDemo}, ids)
	require.Equal(t, "true", list.Header().Get(Header))
}

func TestUnknownEndpointIs404(t *testing.T) {
	s, _ := start(t, Scenarios(), "")
	raw, err := http.Post(s.URL()+"/embeddings", "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	defer raw.Body.Close()
	require.Equal(t, http.StatusNotFound, raw.StatusCode)
	require.Equal(t, "true", raw.Header.Get(Header))
	b, _ := io.ReadAll(raw.Body)
	require.Contains(t, string(b), "not served by the scripted model server")
}

func TestStartLogsThatItIsATestDouble(t *testing.T) {
	var lines []string
	s, err := Start("", Scenarios(), Echo, WithLogf(func(f string, a ...any) {
		lines = append(lines, strings.TrimSpace(fmt.Sprintf(f, a...)))
	}))
	require.NoError(t, err)
	defer s.Close()
	require.Len(t, lines, 1)
	require.Equal(t, "scripted model server (a test double, not a real model) listening on "+s.URL()+
		", scripts: concierge-demo, echo, final-output, stock-demo, support-general, support-orders, support-refunds, travel-demo (fallback: echo)", lines[0])
	require.True(t, strings.HasPrefix(s.URL(), "http://127.0.0.1:"))
	require.True(t, strings.HasSuffix(s.URL(), "/v1"))
}
