package tokens

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCountMatchesTheModelsTokenizer(t *testing.T) {
	// Reference counts of OpenAI's tiktoken for these strings.
	require.Equal(t, 4, Count("gpt-4o", "hello world, friend"))
	require.Equal(t, 0, Count("gpt-4o", ""))
	long := strings.Repeat("the quick brown fox ", 500)
	require.InDelta(t, 2000, Count("gpt-4o-mini", long), 20)
	require.InDelta(t, 2000, Count("llama-3.1-8b", long), 20)
}

func TestEncodingFollowsTheFamily(t *testing.T) {
	cases := map[string]string{
		"gpt-4o-mini": "o200k_base", "openai/gpt-4.1": "o200k_base", "o3-mini": "o200k_base", "GPT-5": "o200k_base",
		"gpt-4": "cl100k_base", "gpt-3.5-turbo": "cl100k_base", "claude-3-5-sonnet": "cl100k_base", "scripted:test": "cl100k_base",
	}
	for model, want := range cases {
		require.Equal(t, want, string(encodingOf(model)), model)
	}
}

func TestMessagesCountsTextCallsAndFraming(t *testing.T) {
	total, each := Messages("gpt-4o", []Message{
		{Role: "system", Content: "Book travel."},
		{Role: "assistant", Calls: []Call{{Name: "search", Args: `{"from":"NYC"}`}}},
		{Role: "tool", ToolCallID: "c1", Content: `{"flights":[]}`},
	})
	require.Len(t, each, 3)
	sum := 0
	for _, n := range each {
		require.Greater(t, n, perMessage)
		sum += n
	}
	require.Equal(t, sum+perReply, total)
	require.Greater(t, each[1], perMessage+perCall, "a call costs its name and arguments")
}

func TestMessagesAtMostBoundsTheCount(t *testing.T) {
	msgs := []Message{
		{Role: "system", Content: "Book travel, héllo wörld 日本語"},
		{Role: "assistant", Calls: []Call{{Name: "search", Args: `{"from":"NYC","note":"` + strings.Repeat("ab ", 50) + `"}`}}},
		{Role: "tool", ToolCallID: "c1", Content: "\xff\xfe not utf-8"},
	}
	for _, model := range []string{"gpt-4o", "gpt-4"} {
		total, _ := Messages(model, msgs)
		require.LessOrEqual(t, total, MessagesAtMost(msgs), model)
	}
}
