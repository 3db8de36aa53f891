package scriptedmodel

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
)

// recvAll reads a stream to its end with go-openai's own reader, returning
// the chunks and the error that ended it (io.EOF after [DONE] or a cut).
func recvAll(t *testing.T, c *openai.Client, req openai.ChatCompletionRequest) ([]openai.ChatCompletionStreamResponse, error) {
	t.Helper()
	st, err := c.CreateChatCompletionStream(context.Background(), req)
	require.NoError(t, err)
	defer st.Close()
	var out []openai.ChatCompletionStreamResponse
	for {
		ch, err := st.Recv()
		if err != nil {
			return out, err
		}
		out = append(out, ch)
	}
}

func streamReq(model string, usage bool) openai.ChatCompletionRequest {
	r := openai.ChatCompletionRequest{Model: model, Messages: []openai.ChatCompletionMessage{user("go")}}
	if usage {
		r.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	return r
}

var twoCalls = Turn{Content: "on it", Calls: []Call{
	{Name: "a", Args: `{"city":"Zürich","n":1}`},
	{Name: "b", Args: `{"x":[1,2,3]}`},
}}

func TestStreamWireFormat(t *testing.T) {
	s, c := start(t, map[string]Script{"m": Sequence(twoCalls)}, "")
	chunks, err := recvAll(t, c, streamReq("m", true))
	require.ErrorIs(t, err, io.EOF)

	whole := completion(1, "m", twoCalls, 0) // ids of request 1, as streamed
	var content string
	args := map[int]string{}
	ids := map[int]string{}
	names := map[int]string{}
	var finish openai.FinishReason
	var usage *openai.Usage
	for _, ch := range chunks {
		require.Equal(t, "chat.completion.chunk", ch.Object)
		require.Equal(t, Fingerprint, ch.SystemFingerprint)
		if ch.Usage != nil {
			require.Empty(t, ch.Choices, "the usage chunk has no choices")
			usage = ch.Usage
			continue
		}
		require.Len(t, ch.Choices, 1)
		d := ch.Choices[0].Delta
		content += d.Content
		for _, tc := range d.ToolCalls {
			require.NotNil(t, tc.Index, "every tool delta carries its index")
			i := *tc.Index
			if tc.ID != "" {
				require.Empty(t, ids[i], "id sent once per index")
				ids[i], names[i] = tc.ID, tc.Function.Name
			} else {
				require.Empty(t, tc.Function.Name, "name sent once per index")
			}
			args[i] += tc.Function.Arguments
		}
		if ch.Choices[0].FinishReason != "" {
			finish = ch.Choices[0].FinishReason
		}
	}
	require.Equal(t, "on it", content)
	require.Equal(t, openai.FinishReasonToolCalls, finish)
	for i, tc := range whole.Choices[0].Message.ToolCalls {
		require.Equal(t, tc.ID, ids[i])
		require.Equal(t, tc.Function.Name, names[i])
		require.Equal(t, tc.Function.Arguments, args[i])
	}
	require.NotNil(t, usage, "include_usage asks for a usage chunk")
	require.Positive(t, usage.PromptTokens)
	require.Equal(t, 1, s.RequestCount())
}

// Arguments arrive in several pieces, so a client that takes the first
// piece as the whole would fail this.
func TestStreamSplitsArguments(t *testing.T) {
	_, c := start(t, map[string]Script{"m": Sequence(twoCalls)}, "")
	chunks, _ := recvAll(t, c, streamReq("m", false))
	pieces := 0
	for _, ch := range chunks {
		require.Nil(t, ch.Usage, "no usage chunk unless asked")
		for _, d := range ch.Choices {
			for _, tc := range d.Delta.ToolCalls {
				if *tc.Index == 0 && tc.Function.Arguments != "" {
					pieces++
				}
			}
		}
	}
	require.Greater(t, pieces, 1)
}

func TestStreamEndsEarly(t *testing.T) {
	turn := twoCalls
	turn.Fault = StreamEndsEarly
	_, c := start(t, map[string]Script{"m": Sequence(turn)}, "")
	chunks, err := recvAll(t, c, streamReq("m", true))
	require.ErrorIs(t, err, io.EOF, "a cut stream ends the reader without [DONE]")
	for _, ch := range chunks {
		require.Nil(t, ch.Usage)
		for _, d := range ch.Choices {
			require.Empty(t, d.FinishReason, "a cut stream has no finish reason")
			for _, tc := range d.Delta.ToolCalls {
				require.Equal(t, 0, *tc.Index, "cut after the first call")
			}
		}
	}
}

func TestStreamRepeatsIndex(t *testing.T) {
	turn := twoCalls
	turn.Fault = StreamRepeatsIndex
	_, c := start(t, map[string]Script{"m": Sequence(turn)}, "")
	chunks, err := recvAll(t, c, streamReq("m", false))
	require.ErrorIs(t, err, io.EOF)
	var idsOf0 []string
	for _, ch := range chunks {
		for _, d := range ch.Choices {
			for _, tc := range d.Delta.ToolCalls {
				if *tc.Index == 0 && tc.ID != "" {
					idsOf0 = append(idsOf0, tc.ID)
				}
			}
		}
	}
	require.Len(t, idsOf0, 2)
	require.NotEqual(t, idsOf0[0], idsOf0[1])
}

func TestStreamRefusedWhenTheScriptOptsOut(t *testing.T) {
	_, c := start(t, map[string]Script{"m": Sequence(Turn{Content: "x", NoStream: true})}, "")
	_, err := c.CreateChatCompletionStream(context.Background(), streamReq("m", false))
	var apiErr *openai.APIError
	require.True(t, errors.As(err, &apiErr), "got %v", err)
	require.Equal(t, http.StatusBadRequest, apiErr.HTTPStatusCode)
	require.Contains(t, apiErr.Message, "stream")

	r, err := c.CreateChatCompletion(context.Background(), streamReq("m", false))
	require.NoError(t, err, "a whole request to the same script is answered")
	require.Equal(t, "x", r.Choices[0].Message.Content)
}

func TestSplitKeepsUTF8Whole(t *testing.T) {
	for _, s := range []string{"", "a", "Zürich", "ééééé", `{"k":"日本語"}`} {
		pieces := split(s, 3)
		joined := ""
		for _, p := range pieces {
			require.True(t, len(p) > 0 && utf8Start(p[0]), "piece %q of %q starts mid-rune", p, s)
			joined += p
		}
		require.Equal(t, s, joined)
		require.LessOrEqual(t, len(pieces), 3+len(s)) // bounded
	}
}

// Content is written in ContentPieces pieces, ContentDelay apart, and the
// server keeps when the first was written.
func TestStreamPacesContent(t *testing.T) {
	turn := Turn{Content: "one two three four", ContentPieces: 4, ContentDelay: 20 * time.Millisecond}
	s, c := start(t, map[string]Script{"m": Sequence(turn)}, "")
	_, ok := s.FirstContentAt(1)
	require.False(t, ok, "nothing written yet")
	before := time.Now()
	chunks, err := recvAll(t, c, streamReq("m", false))
	require.ErrorIs(t, err, io.EOF)
	var pieces []string
	for _, ch := range chunks {
		if len(ch.Choices) > 0 && ch.Choices[0].Delta.Content != "" {
			pieces = append(pieces, ch.Choices[0].Delta.Content)
		}
	}
	require.Len(t, pieces, 4)
	require.Equal(t, turn.Content, strings.Join(pieces, ""))
	at, ok := s.FirstContentAt(1)
	require.True(t, ok)
	require.False(t, at.Before(before))
}
