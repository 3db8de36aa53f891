// Package scriptedmodel is a scripted OpenAI-compatible chat-completions
// server: a TEST DOUBLE standing in for a model. It is used by the demo
// (when no real endpoint is configured), the integration tests and the
// benchmarks; its path, internal/testdouble/, says so. It is not a model and
// makes no decisions of its own; every answer comes from a Script, a pure
// function of the conversation it is sent.
//
// It speaks the real chat-completions wire format (go-openai's request and
// response types do the (de)serialisation), so the engine talks to it through
// the same client it uses for a real provider, with nothing mocked in
// between. Because a reader of logs, traces or recorded responses must never
// mistake it for a real model, every answer is labelled: the response header
// X-Unstuck-Scripted: true, system_fingerprint "unstuck-scripted", and a start
// log line saying it is a test double.
//
// Scripts are pure so that Temporal's retries and replays of a model request
// get the same answer. Failures (rate limits, outages, slow answers) are
// scripted too, through Turn.Status, Turn.Delay and Server.FailNext.
//
// A request with stream: true is answered as Server-Sent Events in OpenAI's
// streaming format (stream.go), paced by Turn.CallDelay and broken on
// purpose by Turn.Fault (cut short, a repeated call index, or a stall:
// the connection held open without a byte); Turn.NoStream refuses it as
// a server without streaming does.
//
// The test layers that use it: docs/testing.md.
package scriptedmodel
