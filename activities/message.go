package activities

import "encoding/json"

// Message is one message of a conversation, in the chat-completions roles
// (system, user, assistant, tool). It is what the run keeps and what the
// model activity turns into a go-openai request.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is one call a model asked for. Args is the raw arguments text,
// which may not even be JSON: the workflow checks it, not the activity.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Args string `json:"args"`
}

// ToolDef is a tool as the model sees it.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// ModelContext is what a model request needs besides the endpoint: the
// whole conversation and the tools. The workflow answers it to the
// QueryModelContext query.
type ModelContext struct {
	Messages []Message `json:"messages"`
	Tools    []ToolDef `json:"tools"`
}

// AssistantMessage is a model's reply as the conversation carries it. A
// reply with neither content nor calls (empty, filtered, or a refusal) is
// still the model's turn, but chat-completions servers refuse an
// assistant message with neither: it carries a note of what came back.
func AssistantMessage(content, refusal string, calls []ToolCall) Message {
	if content == "" && len(calls) == 0 {
		content = "[empty reply]"
		if refusal != "" {
			content = "[refused] " + refusal
		}
	}
	return Message{Role: "assistant", Content: content, ToolCalls: calls}
}
