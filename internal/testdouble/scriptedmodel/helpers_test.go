package scriptedmodel

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
)

// start runs a server for one test and a real go-openai client pointed at it.
func start(t *testing.T, scripts map[string]Script, fallback string) (*Server, *openai.Client) {
	t.Helper()
	s, err := Start("127.0.0.1:0", scripts, fallback, WithLogf(t.Logf))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	cfg := openai.DefaultConfig("test-key")
	cfg.BaseURL = s.URL()
	return s, openai.NewClientWithConfig(cfg)
}

func user(text string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: text}
}

func toolMsg(callID, content string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: callID, Content: content}
}
