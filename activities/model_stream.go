package activities

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// streamedReply asks for the reply as a stream (the agent's stream_calls)
// and assembles it into the same ModelReply a whole request returns, which
// stays the source of truth. Each call finished before the reply ends is
// given to send (when not nil), so the run can start it at once.
// A provider silent for longer than the model's stall deadlines is cut
// (stallWatch): the request fails as ModelStalled and is tried again.
// It heartbeats as chunks arrive and, while it waits within those
// deadlines, on a ticker: that beat says the worker is alive (a dead
// one is found in the run's heartbeat timeout), the stall watch says
// whether the provider is. The beats carry the progress and text
// written so far (StreamProgress), which only bytes move: it is how a
// follower of the run reads a reply as it is written, the SDK sending
// the latest at most every LiveTextEvery.
// A server that refuses streaming gets a whole-reply request instead.
func streamedReply(ctx context.Context, model config.Model, client *openai.Client, capture *headerCapture, request openai.ChatCompletionRequest, node string, send func(int, ToolCall)) (*ModelReply, error) {
	var progress atomic.Pointer[signals.StreamProgress]
	progress.Store(&signals.StreamProgress{Node: node})
	stopBeats := heartbeatEvery(ctx, ModelHeartbeatEvery, func() any { return *progress.Load() })
	defer stopBeats()
	streamed := request
	streamed.Stream = true
	streamed.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	sctx, watch := watchStall(ctx, model.StallBounds())
	defer watch.stop()
	stream, err := client.CreateChatCompletionStream(sctx, streamed)
	if err != nil {
		if cut := stalledBy(sctx); cut != nil {
			return nil, stallError(model, cut, "")
		}
		if refusesStreaming(err) {
			watch.stop()
			activity.GetLogger(ctx).Warn("the model refused a streamed request; asking for a whole reply instead",
				"model", model.Name, "error", err.Error())
			return wholeReply(ctx, model, client, capture, request)
		}
		return nil, modelError(model, err, capture.retryAfter())
	}
	defer func() { _ = stream.Close() }()
	var asm streamAssembly
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break // after [DONE], or a stream cut short: reply() tells them apart
		}
		if err != nil {
			if cut := stalledBy(sctx); cut != nil {
				return nil, stallError(model, cut, asm.progress())
			}
			return nil, modelError(model, fmt.Errorf("streamed reply, after %s: %w", asm.progress(), err), 0)
		}
		if err := asm.add(chunk); err != nil {
			return nil, streamError(model, err)
		}
		if asm.finish == "" {
			// Once the reply says it is finished, it is moments away:
			// its calls start from it.
			asm.sendFinished(send)
		}
		beat := asm.heartbeat(node, activity.GetInfo(ctx).Attempt)
		if was := progress.Swap(&beat); was.ContentBytes != beat.ContentBytes || was.Calls != beat.Calls {
			// Only a chunk that wrote something: the SDK sends the first
			// beat of a quiet spell at once, so the reply's first words
			// reach followers without waiting out the throttle.
			activity.RecordHeartbeat(ctx, beat)
		}
	}
	reply, err := asm.reply()
	if err != nil {
		return nil, streamError(model, err)
	}
	return reply, nil
}

// refusesStreaming: a 400 that names stream is a server without streaming
// (a proxy, a local model server), not a bad request; anything else is
// classed as a whole request's error would be.
func refusesStreaming(err error) bool {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		return apiErr.HTTPStatusCode == http.StatusBadRequest && strings.Contains(strings.ToLower(apiErr.Message), "stream")
	case errors.As(err, &reqErr):
		return reqErr.HTTPStatusCode == http.StatusBadRequest && strings.Contains(strings.ToLower(string(reqErr.Body)), "stream")
	}
	return false
}

// streamError is a malformed stream: retried, since the next attempt may
// stream correctly, and named so the run's history says what broke.
func streamError(model config.Model, err error) error {
	return temporal.NewApplicationError(
		fmt.Sprintf("model %q at %s: streamed reply: %v", model.Name, safeURL(model.BaseURL), err),
		ModelUnavailableError)
}

// LiveTextEvery is the most often a model request's heartbeat reaches the
// server (the worker's MaxHeartbeatThrottleInterval): how late a
// follower may read the text a streamed reply wrote, before its own
// polling.
const LiveTextEvery = 250 * time.Millisecond

// streamAssembly gathers a streamed reply: content in order, tool calls by
// their index (id and name from the index's first delta, arguments
// concatenated as they come).
type streamAssembly struct {
	id, model string
	content   strings.Builder
	refusal   strings.Builder
	calls     map[int]*ToolCall
	finish    string
	usage     *openai.Usage
	chunks    int
	// sent counts the calls given to the run before the reply ended;
	// sendingStopped: a call ended unfinished, so no later one is sent.
	sent           int
	sendingStopped bool
}

func (s *streamAssembly) add(ch openai.ChatCompletionStreamResponse) error {
	s.chunks++
	if s.id == "" {
		s.id = ch.ID
	}
	if ch.Model != "" {
		s.model = ch.Model
	}
	if ch.Usage != nil {
		s.usage = ch.Usage
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue // one choice is asked for; others are not this reply
		}
		s.content.WriteString(c.Delta.Content)
		s.refusal.WriteString(c.Delta.Refusal)
		for _, tc := range c.Delta.ToolCalls {
			if err := s.addCall(tc); err != nil {
				return err
			}
		}
		if c.FinishReason != "" {
			s.finish = string(c.FinishReason)
		}
	}
	return nil
}

// addCall merges one tool-call delta. A delta without an index (some
// OpenAI-compatible servers) starts a call when it has an id and continues
// the last one otherwise. An index seen before under another id is two
// calls spliced together: refused rather than guessed, so no call runs
// twice or with another's arguments.
func (s *streamAssembly) addCall(tc openai.ToolCall) error {
	if s.calls == nil {
		s.calls = map[int]*ToolCall{}
	}
	i := len(s.calls) - 1
	switch {
	case tc.Index != nil:
		i = *tc.Index
	case tc.ID != "" || i < 0:
		i = len(s.calls)
	}
	if i < 0 {
		return fmt.Errorf("tool call index %d is negative", i)
	}
	call := s.calls[i]
	if call == nil {
		call = &ToolCall{}
		s.calls[i] = call
	}
	switch {
	case tc.ID == "" || tc.ID == call.ID:
	case call.ID == "":
		call.ID = tc.ID
	default:
		return fmt.Errorf("tool call index %d came again with id %q after %q, after %s", i, tc.ID, call.ID, s.progress())
	}
	if call.Name == "" {
		call.Name = tc.Function.Name
	}
	call.Args += tc.Function.Arguments
	return nil
}

// reply is the assembled reply; a stream that never said how it finished
// was cut short, and a call without id or name cannot be run or answered.
func (s *streamAssembly) reply() (*ModelReply, error) {
	if s.finish == "" {
		return nil, fmt.Errorf("the stream ended without a finish reason, after %s", s.progress())
	}
	reply := &ModelReply{
		ResponseID:   s.id,
		Content:      s.content.String(),
		Refusal:      s.refusal.String(),
		FinishReason: s.finish,
		Model:        s.model,
	}
	if s.usage != nil {
		reply.InputTokens, reply.OutputTokens = s.usage.PromptTokens, s.usage.CompletionTokens
	}
	indexes := make([]int, 0, len(s.calls))
	for i := range s.calls {
		indexes = append(indexes, i)
	}
	slices.Sort(indexes)
	for _, i := range indexes {
		c := s.calls[i]
		if c.ID == "" || c.Name == "" {
			return nil, fmt.Errorf("tool call index %d has no id or no name (id %q, name %q)", i, c.ID, c.Name)
		}
		reply.ToolCalls = append(reply.ToolCalls, *c)
	}
	return reply, nil
}

func (s *streamAssembly) heartbeat(node string, attempt int32) signals.StreamProgress {
	p := signals.StreamProgress{Chunks: s.chunks, ContentBytes: s.content.Len(), Calls: len(s.calls), Node: node}
	if node != "" {
		p.Attempt, p.Text = attempt, policies.CutText(s.content.String(), signals.MaxLiveText)
	}
	return p
}

// progress says how far the stream got, for error messages.
func (s *streamAssembly) progress() string {
	return fmt.Sprintf("%d chunks, %d bytes of content and %d tool calls", s.chunks, s.content.Len(), len(s.calls))
}
