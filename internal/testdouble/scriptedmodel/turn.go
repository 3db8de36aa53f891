package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Call is one tool call the scripted model makes.
type Call struct {
	Name string
	// Args is the raw JSON arguments string, sent verbatim. It is a string
	// rather than a value so tests can send deliberately invalid JSON and
	// exercise the engine's structural-error path.
	Args string
}

// Turn is one scripted answer to a chat-completions request.
type Turn struct {
	// Content is the assistant message text. With no Calls, a content reply
	// ends an unstuck run with this content as its output.
	Content string
	// Calls are the tool calls of the answer, in order.
	Calls []Call
	// Refusal is sent as the message's refusal (OpenAI's answer when a
	// model declines), usually with no content and no calls.
	Refusal string
	// FinishReason, when set, is the answer's finish_reason (e.g.
	// "length" for a reply cut off), instead of stop or tool_calls.
	FinishReason string
	// Status, when non-zero, makes the server answer this HTTP status with an
	// OpenAI-style error body instead of a completion, to script provider
	// failures (429, 5xx, 400...).
	Status int
	// Message is the error message for Status; a default is used when empty.
	Message string
	// RetryAfter, when positive, is sent as the Retry-After header (whole
	// seconds, rounded up) with a Status answer, as real providers do on 429.
	RetryAfter time.Duration
	// Delay is slept before answering, to script slow models and timeouts. A
	// client that gives up first ends the wait.
	Delay time.Duration
	// CallDelay, in a streamed answer, is slept before each call after the
	// first, so tests can see a call complete while the next is still
	// being written. A whole answer ignores it.
	CallDelay time.Duration
	// EndDelay, in a streamed answer, is slept after the last call before
	// the finish chunk (a model still writing when its calls are done). A
	// whole answer ignores it.
	EndDelay time.Duration
	// ContentPieces, in a streamed answer, is how many pieces the content
	// is written in (0: 3); ContentDelay is slept before each piece after
	// the first, so a test can read a reply while it is written. A whole
	// answer ignores both.
	ContentPieces int
	ContentDelay  time.Duration
	// ContentHold, in a streamed answer, writes the content's first line
	// (up to its first new line), then holds the rest until it is closed
	// or the client leaves, so a test can act while a reply is written
	// however slow the machine. A whole answer ignores it.
	ContentHold <-chan struct{}
	// NoStream refuses a streamed request for this turn with a 400 naming
	// stream, as a server without streaming does, so the engine's fallback
	// to a whole reply can be tested. A whole request is answered as usual.
	NoStream bool
	// Fault breaks a streamed answer on purpose (see StreamFault). A whole
	// answer ignores it. Arguments that never become valid JSON need no
	// fault: give a Call invalid Args and it is streamed as written.
	Fault StreamFault
}

// StreamFault is a scripted way for a streamed answer to go wrong.
type StreamFault int

const (
	// StreamOK is a well-formed stream.
	StreamOK StreamFault = iota
	// StreamEndsEarly stops after the first call (or the content, with no
	// calls) without a finish reason, usage or [DONE], as a dropped
	// connection or a crashed server does.
	StreamEndsEarly
	// StreamRepeatsIndex sends, after the calls, another call under index
	// 0 with a different id: a provider bug that must never run a call
	// twice or splice two calls together silently.
	StreamRepeatsIndex
	// StreamStallsBeforeFirstByte sends the response's headers and then
	// nothing, holding the connection open until the client leaves: a
	// provider that hangs before it answers.
	StreamStallsBeforeFirstByte
	// StreamStallsAfterFirstChunk sends the first chunk (the role) and
	// then nothing, holding the connection open until the client leaves:
	// a provider that hangs in the middle of a reply.
	StreamStallsAfterFirstChunk
)

// Script chooses the Turn answering a request. Scripts must be pure functions
// of the request (the conversation so far) so that retries and replays of the
// same request get the same answer; Server state such as FailNext is the
// only non-pure part, and it is kept out of scripts on purpose.
type Script func(req openai.ChatCompletionRequest) Turn

// Reply is a content-only Turn.
func Reply(content string) Turn {
	return Turn{Content: content}
}

// CallTurn is a Turn making one tool call with args marshalled to JSON. It
// panics if args cannot be marshalled: that is a bug in the script, and the
// server turns a script panic into a 500 naming it.
func CallTurn(name string, args any) Turn {
	return Turn{Calls: []Call{NewCall(name, args)}}
}

// CallsTurn is a Turn making several tool calls in one step, so tests can
// exercise the engine's concurrent calls and Variable References.
func CallsTurn(calls ...Call) Turn {
	return Turn{Calls: calls}
}

// NewCall is a Call with args marshalled to JSON; it panics as CallTurn does.
// Use a Call literal to send arguments that are not valid JSON.
func NewCall(name string, args any) Call {
	b, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprintf("scriptedmodel: arguments of %s cannot be marshalled: %v", name, err))
	}
	return Call{Name: name, Args: string(b)}
}

// Fail is a Turn answering an HTTP error status with message.
func Fail(status int, message string) Turn {
	return Turn{Status: status, Message: message}
}
