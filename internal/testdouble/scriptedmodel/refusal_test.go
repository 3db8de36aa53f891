package scriptedmodel

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
)

var refusing = map[string]Script{"refuser": func(openai.ChatCompletionRequest) Turn {
	return Turn{Refusal: "I can't help with that."}
}}

func TestARefusalTurnIsTheMessagesRefusal(t *testing.T) {
	_, c := start(t, refusing, "")
	resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "refuser", Messages: []openai.ChatCompletionMessage{user("go")},
	})
	require.NoError(t, err)
	msg := resp.Choices[0].Message
	require.Equal(t, "I can't help with that.", msg.Refusal)
	require.Empty(t, msg.Content)
	require.Empty(t, msg.ToolCalls)
	require.Equal(t, openai.FinishReasonStop, resp.Choices[0].FinishReason)
}

func TestARefusalIsStreamedInPieces(t *testing.T) {
	_, c := start(t, refusing, "")
	chunks, err := recvAll(t, c, streamReq("refuser", false))
	require.True(t, errors.Is(err, io.EOF), "%v", err)
	var got strings.Builder
	pieces := 0
	for _, ch := range chunks {
		for _, choice := range ch.Choices {
			if choice.Delta.Refusal != "" {
				pieces++
				got.WriteString(choice.Delta.Refusal)
			}
		}
	}
	require.Equal(t, "I can't help with that.", got.String())
	require.Greater(t, pieces, 1)
}

// An assistant message with neither content nor calls is refused as a
// real provider refuses it, naming the message.
func TestAnEmptyAssistantMessageIs400(t *testing.T) {
	s, c := start(t, Scenarios(), "")
	_, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: Echo,
		Messages: []openai.ChatCompletionMessage{
			user("go"), {Role: openai.ChatMessageRoleAssistant}, user("again"),
		},
	})
	var apiErr *openai.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, http.StatusBadRequest, apiErr.HTTPStatusCode)
	require.Contains(t, apiErr.Message, "messages.[1].content")
	require.Equal(t, 1, s.RequestCount(), "recorded, as a provider logs a refused request")
}
