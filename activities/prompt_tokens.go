package activities

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/internal/tokens"
)

// promptTokens counts a request's prompt as the provider would: the
// messages with their framing, and the tool definitions.
func promptTokens(model string, mc ModelContext) int {
	msgs := make([]tokens.Message, len(mc.Messages))
	for i, m := range mc.Messages {
		msgs[i] = tokens.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msgs[i].Calls = append(msgs[i].Calls, tokens.Call{Name: tc.Name, Args: tc.Args})
		}
	}
	n, _ := tokens.Messages(model, msgs)
	for _, d := range mc.Tools {
		def, _ := json.Marshal(d)
		n += tokens.Count(model, string(def))
	}
	return n
}
