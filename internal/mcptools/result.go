package mcptools

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultJSON turns a tool's result into the JSON the agent sees: the structured content when
// there is some; else the text, as JSON when it is JSON (many servers answer JSON as text),
// else as a JSON string; else, for images and other content, the content array itself.
func resultJSON(res *mcp.CallToolResult) (json.RawMessage, error) {
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("encoding structured content: %w", err)
		}
		return b, nil
	}
	if text, ok := allText(res.Content); ok {
		if json.Valid([]byte(text)) {
			return json.RawMessage(strings.TrimSpace(text)), nil
		}
		return json.Marshal(text)
	}
	content := res.Content
	if content == nil {
		content = []mcp.Content{}
	}
	b, err := json.Marshal(map[string]any{"content": content})
	if err != nil {
		return nil, fmt.Errorf("encoding content: %w", err)
	}
	return b, nil
}

// allText joins the content's text items with newlines (they are usually paragraphs); ok is
// false when any item is not text. An empty content list is text: the empty string.
func allText(content []mcp.Content) (text string, ok bool) {
	texts := make([]string, 0, len(content))
	for _, c := range content {
		t, isText := c.(*mcp.TextContent)
		if !isText {
			return "", false
		}
		texts = append(texts, t.Text)
	}
	return strings.Join(texts, "\n"), true
}

// errorText is the text of an isError result, for ToolError; non-text items are shown as JSON.
func errorText(res *mcp.CallToolResult) string {
	if text, ok := allText(res.Content); ok {
		return text
	}
	b, _ := json.Marshal(res.Content)
	return string(b)
}
