package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"net/http"

	openai "github.com/sashabaranov/go-openai"

	"github.com/unstuck-dev/unstuck/tokens"
)

// WithContextWindow gives every model of the server a token window: a
// request whose prompt takes more tokens is refused as OpenAI refuses it
// (400, code context_length_exceeded, its exact message), before any
// script runs.
func WithContextWindow(window int) Option {
	return func(s *Server) { s.window = window }
}

// PromptTokens are the prompt sizes of the requests received by a server
// with a window, in tokens (counted with the model family's tokenizer), in
// arrival order.
func (s *Server) PromptTokens() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.prompts...)
}

// overWindow answers a request over the window with OpenAI's error, and
// says so; it records every prompt's size (with a window only: counting
// costs).
func (s *Server) overWindow(w http.ResponseWriter, req openai.ChatCompletionRequest) bool {
	if s.window == 0 {
		return false
	}
	n := promptTokens(req)
	s.mu.Lock()
	s.prompts = append(s.prompts, n)
	s.mu.Unlock()
	if n <= s.window {
		return false
	}
	param := "messages"
	writeJSON(w, http.StatusBadRequest, openai.ErrorResponse{Error: &openai.APIError{
		Message: fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", s.window, n),
		Type:    "invalid_request_error",
		Param:   &param,
		Code:    "context_length_exceeded",
	}})
	return true
}

// promptTokens counts a request's messages and tool definitions.
func promptTokens(req openai.ChatCompletionRequest) int {
	msgs := make([]tokens.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = tokens.Message{Role: m.Role, Content: text(m), ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msgs[i].Calls = append(msgs[i].Calls, tokens.Call{Name: tc.Function.Name, Args: tc.Function.Arguments})
		}
	}
	n, _ := tokens.Messages(req.Model, msgs)
	for _, t := range req.Tools {
		def, _ := json.Marshal(t.Function)
		n += tokens.Count(req.Model, string(def))
	}
	return n
}
