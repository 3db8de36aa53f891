package scriptedmodel

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// streamAsk is what a streamed request asked for.
type streamAsk struct{ includeUsage bool }

// askedStream is nil for a whole-reply request.
func askedStream(req openai.ChatCompletionRequest) *streamAsk {
	if !req.Stream {
		return nil
	}
	return &streamAsk{includeUsage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage}
}

// The wire types of a chat.completion.chunk. go-openai's own types write
// empty fields ("type": "", "finish_reason": null on every tool delta) a
// real provider leaves out, so the double writes its own, field for field
// as OpenAI sends them; tests decode them with go-openai's stream reader.
type (
	chunk struct {
		ID                string        `json:"id"`
		Object            string        `json:"object"`
		Created           int64         `json:"created"`
		Model             string        `json:"model"`
		SystemFingerprint string        `json:"system_fingerprint"`
		Choices           []chunkChoice `json:"choices"`
		Usage             *openai.Usage `json:"usage,omitempty"`
	}
	chunkChoice struct {
		Index        int        `json:"index"`
		Delta        chunkDelta `json:"delta"`
		FinishReason *string    `json:"finish_reason"`
	}
	chunkDelta struct {
		Role      string          `json:"role,omitempty"`
		Content   *string         `json:"content,omitempty"`
		Refusal   string          `json:"refusal,omitempty"`
		ToolCalls []toolCallDelta `json:"tool_calls,omitempty"`
	}
	toolCallDelta struct {
		Index    int           `json:"index"`
		ID       string        `json:"id,omitempty"`
		Type     string        `json:"type,omitempty"`
		Function functionDelta `json:"function"`
	}
	functionDelta struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
)

// argPieces is how many pieces a call's arguments are cut into, so a
// client must concatenate them as it must a real model's.
const argPieces = 3

// stream writes the completion as Server-Sent Events in OpenAI's streaming
// format: a role chunk, the content, each call (id and name once, then its
// arguments in pieces), a finish chunk, a usage chunk when asked, [DONE].
// turn.Fault breaks it on purpose; turn.CallDelay paces the calls and
// turn.ContentDelay the content. When request n's first content was
// written is kept (FirstContentAt).
func (s *Server) stream(w http.ResponseWriter, r *http.Request, n int, c openai.ChatCompletionResponse, turn Turn, includeUsage bool) {
	s.mu.Lock()
	s.streams++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.streams--
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if turn.Fault == StreamStallsBeforeFirstByte {
		flushAndHang(w, r)
		return
	}
	send := func(ch chunk) {
		ch.ID, ch.Object, ch.Created, ch.Model, ch.SystemFingerprint = c.ID, "chat.completion.chunk", c.Created, c.Model, c.SystemFingerprint
		b, _ := json.Marshal(ch) // plain structs: cannot fail
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	delta := func(d chunkDelta) { send(chunk{Choices: []chunkChoice{{Delta: d}}}) }
	msg := c.Choices[0].Message
	empty := ""
	delta(chunkDelta{Role: openai.ChatMessageRoleAssistant, Content: &empty})
	if turn.Fault == StreamStallsAfterFirstChunk {
		flushAndHang(w, r)
		return
	}
	for i, piece := range contentPieces(msg.Content, turn) {
		if i > 0 && (!sleep(r, turn.ContentDelay) || !held(r, turn.ContentHold)) {
			return
		}
		delta(chunkDelta{Content: &piece})
		if i == 0 {
			s.wroteContent(n)
		}
	}
	for _, piece := range split(msg.Refusal, argPieces) {
		delta(chunkDelta{Refusal: piece})
	}
	for i, tc := range msg.ToolCalls {
		if i > 0 && !sleep(r, turn.CallDelay) {
			return // the client gave up
		}
		streamCall(delta, i, tc.ID, tc.Function)
		if turn.Fault == StreamEndsEarly {
			return // no finish reason, no [DONE]: the connection just ends
		}
	}
	if !sleep(r, turn.EndDelay) {
		return
	}
	switch turn.Fault {
	case StreamEndsEarly:
		return
	case StreamRepeatsIndex:
		streamCall(delta, 0, fmt.Sprintf("call_repeated_%s", c.ID), openai.FunctionCall{Name: "repeated", Arguments: "{}"})
	}
	finish := string(c.Choices[0].FinishReason)
	send(chunk{Choices: []chunkChoice{{Delta: chunkDelta{}, FinishReason: &finish}}})
	if includeUsage {
		u := c.Usage
		send(chunk{Choices: []chunkChoice{}, Usage: &u})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// streamCall writes call i: id, type and name with empty arguments, then
// the arguments in pieces carrying only the index.
func streamCall(delta func(chunkDelta), i int, id string, fn openai.FunctionCall) {
	delta(chunkDelta{ToolCalls: []toolCallDelta{{Index: i, ID: id, Type: string(openai.ToolTypeFunction), Function: functionDelta{Name: fn.Name}}}})
	for _, piece := range split(fn.Arguments, argPieces) {
		delta(chunkDelta{ToolCalls: []toolCallDelta{{Index: i, Function: functionDelta{Arguments: piece}}}})
	}
}

// split cuts s into at most n pieces of about equal byte length, never
// inside a UTF-8 sequence; "" has no pieces.
func split(s string, n int) []string {
	var out []string
	size := max(1, (len(s)+n-1)/n)
	for len(s) > 0 {
		end := min(size, len(s))
		for end < len(s) && !utf8Start(s[end]) {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// contentPieces is the content as it is written: its first line and the
// rest when turn holds the rest, else turn.ContentPieces pieces.
func contentPieces(content string, turn Turn) []string {
	if turn.ContentHold != nil {
		if i := strings.IndexByte(content, '\n'); i >= 0 && i+1 < len(content) {
			return []string{content[:i+1], content[i+1:]}
		}
	}
	return split(content, cmp.Or(turn.ContentPieces, argPieces))
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// sleep waits d unless the client leaves first; false when it left.
func sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// held waits until hold is closed (a nil hold holds nothing), or says
// (false) that the client left first.
func held(r *http.Request, hold <-chan struct{}) bool {
	if hold == nil {
		return true
	}
	select {
	case <-hold:
		return true
	case <-r.Context().Done():
		return false
	}
}

// flushAndHang sends what is written and then nothing, holding the
// connection open until the client leaves (or the server closes): a
// provider that hangs without answering.
func flushAndHang(w http.ResponseWriter, r *http.Request) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	<-r.Context().Done()
}
