package activities

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
)

func delta(calls ...openai.ToolCall) openai.ChatCompletionStreamResponse {
	return openai.ChatCompletionStreamResponse{ID: "r", Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{ToolCalls: calls}}}}
}

func finished(reason openai.FinishReason) openai.ChatCompletionStreamResponse {
	return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{FinishReason: reason}}}
}

func idx(i int) *int { return &i }

// Calls come out in index order whatever order their deltas interleave in.
func TestAssemblyOrdersCallsByIndex(t *testing.T) {
	var s streamAssembly
	for _, ch := range []openai.ChatCompletionStreamResponse{
		delta(openai.ToolCall{Index: idx(1), ID: "b", Function: openai.FunctionCall{Name: "nb"}}),
		delta(openai.ToolCall{Index: idx(0), ID: "a", Function: openai.FunctionCall{Name: "na", Arguments: `{"x"`}}),
		delta(openai.ToolCall{Index: idx(1), Function: openai.FunctionCall{Arguments: `{}`}}),
		delta(openai.ToolCall{Index: idx(0), ID: "a", Function: openai.FunctionCall{Arguments: `:1}`}}),
		finished(openai.FinishReasonToolCalls),
	} {
		require.NoError(t, s.add(ch))
	}
	r, err := s.reply()
	require.NoError(t, err)
	require.Equal(t, "r", r.ResponseID)
	require.Equal(t, []ToolCall{{ID: "a", Name: "na", Args: `{"x":1}`}, {ID: "b", Name: "nb", Args: `{}`}}, r.ToolCalls)
}

// Servers that leave the index out: an id starts a call, a delta without
// one continues the last.
func TestAssemblyWithoutIndexes(t *testing.T) {
	var s streamAssembly
	for _, ch := range []openai.ChatCompletionStreamResponse{
		delta(openai.ToolCall{ID: "a", Function: openai.FunctionCall{Name: "na"}}),
		delta(openai.ToolCall{Function: openai.FunctionCall{Arguments: `{}`}}),
		delta(openai.ToolCall{ID: "b", Function: openai.FunctionCall{Name: "nb", Arguments: `[`}}),
		delta(openai.ToolCall{Function: openai.FunctionCall{Arguments: `]`}}),
		finished(openai.FinishReasonToolCalls),
	} {
		require.NoError(t, s.add(ch))
	}
	r, err := s.reply()
	require.NoError(t, err)
	require.Equal(t, []ToolCall{{ID: "a", Name: "na", Args: `{}`}, {ID: "b", Name: "nb", Args: `[]`}}, r.ToolCalls)
}

func TestAssemblyRefusesACallWithoutID(t *testing.T) {
	var s streamAssembly
	require.NoError(t, s.add(delta(openai.ToolCall{Index: idx(0), Function: openai.FunctionCall{Name: "na", Arguments: `{}`}})))
	require.NoError(t, s.add(finished(openai.FinishReasonToolCalls)))
	_, err := s.reply()
	require.EqualError(t, err, `tool call index 0 has no id or no name (id "", name "na")`)
}

func TestAssemblyRefusesNegativeIndex(t *testing.T) {
	var s streamAssembly
	err := s.add(delta(openai.ToolCall{Index: idx(-1), ID: "a"}))
	require.EqualError(t, err, "tool call index -1 is negative")
}
