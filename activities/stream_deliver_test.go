package activities

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
)

func call(i int, id, name, args string) openai.ChatCompletionStreamResponse {
	return delta(openai.ToolCall{Index: idx(i), ID: id, Function: openai.FunctionCall{Name: name, Arguments: args}})
}

// A call is sent the moment its arguments are a whole JSON object, in
// order; a call that ends without valid arguments stops the sending, so
// the run never starts a later call before an earlier one it may not know.
func TestSendFinishedCalls(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []openai.ChatCompletionStreamResponse
		sent   []int // indexes sent after each chunk, cumulatively
	}{
		{"an object in pieces is sent when whole", []openai.ChatCompletionStreamResponse{
			call(0, "a", "na", ""), call(0, "", "", `{"q":`), call(0, "", "", `"x"}`), call(1, "b", "nb", `{}`),
		}, []int{0, 0, 1, 2}},
		{"text that only ends in a brace waits", []openai.ChatCompletionStreamResponse{
			call(0, "a", "na", `{"q":"}`), call(0, "", "", `"}`),
		}, []int{0, 1}},
		{"arguments that are not an object stop the sending", []openai.ChatCompletionStreamResponse{
			call(0, "a", "na", `[1]`), call(1, "b", "nb", `{}`), call(2, "c", "nc", `{}`),
		}, []int{0, 0, 0}},
		{"invalid arguments of an earlier call stop the sending", []openai.ChatCompletionStreamResponse{
			call(0, "a", "na", `{}`), call(1, "b", "nb", `{"q":`), call(2, "c", "nc", `{}`),
		}, []int{1, 1, 1}},
		{"a call without a name waits", []openai.ChatCompletionStreamResponse{
			call(0, "a", "", `{}`), call(0, "", "na", ``),
		}, []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s streamAssembly
			var sent []int
			send := func(i int, c ToolCall) {
				require.Equal(t, len(sent), i, "sent in order")
				require.NotEmpty(t, c.ID)
				sent = append(sent, i)
			}
			for k, ch := range tc.chunks {
				require.NoError(t, s.add(ch))
				s.sendFinished(send)
				require.Len(t, sent, tc.sent[k], "after chunk %d", k)
			}
		})
	}
}

// Without a run to send to, nothing is sent and nothing breaks.
func TestSendFinishedWithoutSender(t *testing.T) {
	var s streamAssembly
	require.NoError(t, s.add(call(0, "a", "na", `{}`)))
	s.sendFinished(nil)
	require.Zero(t, s.sent)
}
