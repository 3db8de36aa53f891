package scriptedmodel

import (
	"regexp"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// ToolResult is the outcome of one tool call as the engine reported it to the
// model in a tool message.
type ToolResult struct {
	CallID  string
	Name    string // tool name, from the assistant call with CallID
	Args    string // that call's raw arguments
	Content string // the tool message content: a result, or an error message
}

// IsError reports whether the result is an error message. The engine reports
// errors as JSON holding an "error" key, and HTTP tools answer {"error": ...},
// so the quoted key is the marker.
func (r ToolResult) IsError() bool {
	return strings.Contains(r.Content, `"error"`)
}

// LastToolResults are the tool messages after the last assistant message: the
// results of the calls the scripted model made in its previous turn. Scripts
// read them to decide their next turn.
func LastToolResults(req openai.ChatCompletionRequest) []ToolResult {
	last := -1
	for i, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleAssistant {
			last = i
		}
	}
	calls := map[string]openai.ToolCall{}
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			calls[c.ID] = c
		}
	}
	var out []ToolResult
	for _, m := range req.Messages[last+1:] {
		if m.Role != openai.ChatMessageRoleTool {
			continue
		}
		r := ToolResult{CallID: m.ToolCallID, Name: m.Name, Content: text(m)}
		if c, ok := calls[m.ToolCallID]; ok {
			r.Name, r.Args = c.Function.Name, c.Function.Arguments
		}
		out = append(out, r)
	}
	return out
}

// Task is the first user message: the task the run was started with.
func Task(req openai.ChatCompletionRequest) string {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleUser {
			return text(m)
		}
	}
	return ""
}

// ThoughtOf is the text of the assistant message that made the tool call
// callID: what the model thought as it made the call, as the conversation
// now has it (a person may have edited it). "" when no message made it.
func ThoughtOf(req openai.ChatCompletionRequest, callID string) string {
	for _, m := range req.Messages {
		if m.Role != openai.ChatMessageRoleAssistant {
			continue
		}
		for _, c := range m.ToolCalls {
			if c.ID == callID {
				return text(m)
			}
		}
	}
	return ""
}

// AssistantTurns is the number of assistant messages in the conversation,
// i.e. how many times the model has already answered in this run.
func AssistantTurns(req openai.ChatCompletionRequest) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleAssistant {
			n++
		}
	}
	return n
}

// text is a message's text whether it was sent as a string or as parts.
func text(m openai.ChatCompletionMessage) string {
	if m.Content != "" || len(m.MultiContent) == 0 {
		return m.Content
	}
	var b strings.Builder
	for _, p := range m.MultiContent {
		if p.Type == openai.ChatMessagePartTypeText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// lastI finds the step number a counting script's results carry.
var lastI = regexp.MustCompile(`"i":\s*(\d+)`)

// NextStep is one more than the step number ("i") in the last tool
// result, 0 when there is none: scripts that count their steps read it
// from their results, since a long run's conversation no longer holds
// every step (archived, cleared or fitted).
func NextStep(req openai.ChatCompletionRequest) int {
	if res := LastToolResults(req); len(res) > 0 {
		if m := lastI.FindStringSubmatch(res[0].Content); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n + 1
		}
	}
	return 0
}
