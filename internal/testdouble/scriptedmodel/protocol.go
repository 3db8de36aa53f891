package scriptedmodel

import (
	"fmt"
	"net/http"

	openai "github.com/sashabaranov/go-openai"
)

// badMessage answers a request whose messages a real provider refuses
// with OpenAI's 400, and says so: an assistant message with neither
// content nor tool calls ("content" is required unless tool_calls is
// given). A client that sends one would fail against every real model,
// so the double fails it too rather than let tests pass on it.
func badMessage(w http.ResponseWriter, req openai.ChatCompletionRequest) bool {
	for i, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleAssistant && m.Content == "" && len(m.MultiContent) == 0 && len(m.ToolCalls) == 0 && m.FunctionCall == nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Invalid value for 'content': expected a string, got null. (messages.[%d].content)", i), "invalid_value", 0)
			return true
		}
	}
	return false
}
