package scriptedmodel

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
)

func assistantCalls(calls ...openai.ToolCall) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: calls}
}

func toolCall(id, name, args string) openai.ToolCall {
	return openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

func TestConversationHelpers(t *testing.T) {
	req := openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You are a travel agent."},
		{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeText, Text: "Book NYC to LAX"},
		}},
		assistantCalls(toolCall("call_1_0", "search_flights", `{"from":"NYC"}`)),
		toolMsg("call_1_0", `{"flights":[]}`),
		assistantCalls(toolCall("call_2_0", "a", `{}`), toolCall("call_2_1", "b", `{"x":1}`)),
		toolMsg("call_2_1", `{"error":"boom"}`),
		toolMsg("call_2_0", `{"ok":true}`),
	}}
	require.Equal(t, "Book NYC to LAX", Task(req))
	require.Equal(t, 2, AssistantTurns(req))
	require.Equal(t, []ToolResult{
		{CallID: "call_2_1", Name: "b", Args: `{"x":1}`, Content: `{"error":"boom"}`},
		{CallID: "call_2_0", Name: "a", Args: `{}`, Content: `{"ok":true}`},
	}, LastToolResults(req))
	require.True(t, LastToolResults(req)[0].IsError())
	req.Messages[4].Content = "both at once"
	require.Equal(t, "both at once", ThoughtOf(req, "call_2_1"), "the text of the message that made the call")
	require.Empty(t, ThoughtOf(req, "call_1_0"), "a call made without a thought")
	require.Empty(t, ThoughtOf(req, "call_9_9"))
	require.False(t, LastToolResults(req)[1].IsError())
}

func TestConversationHelpersOnAFreshConversation(t *testing.T) {
	req := openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{user("hi")}}
	require.Equal(t, "hi", Task(req))
	require.Zero(t, AssistantTurns(req))
	require.Empty(t, LastToolResults(req))
	require.Empty(t, Task(openai.ChatCompletionRequest{}))
}

func TestSequenceFollowsAssistantTurns(t *testing.T) {
	s := Sequence(CallTurn("a", map[string]int{"n": 1}), Reply("second"))
	req := openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{user("go")}}
	require.Equal(t, []Call{{Name: "a", Args: `{"n":1}`}}, s(req).Calls)
	require.Equal(t, s(req), s(req), "the same conversation gets the same turn")

	req.Messages = append(req.Messages, assistantCalls(toolCall("call_1_0", "a", `{"n":1}`)), toolMsg("call_1_0", "{}"))
	require.Equal(t, "second", s(req).Content)

	req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "second"})
	require.Equal(t, Reply(DoneContent), s(req), "past the end")
}
