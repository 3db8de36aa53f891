package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Fingerprint is the system_fingerprint of every scripted completion, so a
// recorded response is recognisable as coming from the test double.
const Fingerprint = "unstuck-scripted"

// completion renders turn as the answer to request number n (1-based) whose
// body was bodyLen bytes long.
func completion(n int, model string, turn Turn, bodyLen int) openai.ChatCompletionResponse {
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: turn.Content, Refusal: turn.Refusal}
	out := len(turn.Content) + len(turn.Refusal)
	for i, c := range turn.Calls {
		// Ids are derived from the request number and position rather than
		// random, so tests and logs can name them; the request number keeps
		// them unique across the server's lifetime, as a real provider's are.
		msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{
			ID:       fmt.Sprintf("call_%d_%d", n, i),
			Type:     openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: c.Name, Arguments: c.Args},
		})
		out += len(c.Name) + len(c.Args)
	}
	finish := openai.FinishReasonStop
	if len(turn.Calls) > 0 {
		finish = openai.FinishReasonToolCalls
	}
	if turn.FinishReason != "" {
		finish = openai.FinishReason(turn.FinishReason)
	}
	return openai.ChatCompletionResponse{
		ID:                fmt.Sprintf("chatcmpl-scripted-%d", n),
		Object:            "chat.completion",
		Created:           time.Now().Unix(),
		Model:             model, // echoed: the script was chosen by this name
		Choices:           []openai.ChatCompletionChoice{{Index: 0, Message: msg, FinishReason: finish}},
		Usage:             usage(bodyLen, out),
		SystemFingerprint: Fingerprint,
	}
}

// usage estimates tokens as bytes/4, the usual rule of thumb, so code that
// accounts for tokens sees plausible non-zero numbers.
func usage(promptBytes, completionBytes int) openai.Usage {
	p, c := max(1, promptBytes/4), max(1, completionBytes/4)
	return openai.Usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}
}

// writeJSON answers status with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client may be gone; nothing to do then
}
