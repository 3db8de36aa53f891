package config

import (
	"fmt"
	"time"
)

// Limits and defaults a run lives by, defined once: the workflow, the
// activities and the docs refer to these names. Temporal refuses any
// payload (activity input or result, workflow input or result, update or
// signal) over 2 MB, and fails the workflow task that tried to send one.
const (
	// MaxPayloadBytes is the largest payload the engine sends to Temporal
	// itself: a model request, a continue-as-new input (compressed). It is
	// under the 2 MB limit with room for Temporal's own envelope.
	MaxPayloadBytes = 1536 << 10
	// MaxToolResultBytes is the largest tool result a run accepts; a
	// larger one fails the call in the activity with a clear error.
	MaxToolResultBytes = 1 << 20
	// MaxToolMessageBytes is what the model reads of one tool result; the
	// whole result stays in the trace and, with _outputPath, in State.
	MaxToolMessageBytes = 128 << 10
	// MaxCarriedJSONBytes bounds the run's state as JSON when it is
	// carried across continue-as-new (and when it is decompressed).
	MaxCarriedJSONBytes = 32 << 20
	// MaxMessageBytes bounds the payload of one message in (an update or
	// a signal: reply, approve, edit, handoff); a larger one is rejected
	// (update) or recorded and ignored (signal).
	MaxMessageBytes = 256 << 10
	// MaxIgnoredSignalNodes bounds the trace nodes recorded for ignored
	// signals of one kind: past it a flood is only counted.
	MaxIgnoredSignalNodes = 50
	// DefaultModelTimeout bounds one model request when the file does not.
	DefaultModelTimeout = Duration(2 * time.Minute)
)

// PerReply is calls_per_reply, or its default where a spec has none (runs
// carried from before limits existed).
func (l Limits) PerReply() int {
	if l.CallsPerReply > 0 {
		return l.CallsPerReply
	}
	return DefaultCallsPerReply
}

// InFlight is calls_in_flight, or its default where a spec has none.
func (l Limits) InFlight() int {
	if l.CallsInFlight > 0 {
		return l.CallsInFlight
	}
	return DefaultCallsInFlight
}

// MaxLoopWindow bounds policies.loop.window: the loop detector keeps that
// many event signatures in the run's state, carried across continue-as-new.
const MaxLoopWindow = 4096

// The bounds of policies.loop.time_window. The run keeps up to Visits
// visit times per node in its state; workflow time moves once per
// workflow task, so windows shorter than a second measure scheduling,
// and longer than a day measure nothing a loop would do.
const (
	MaxTimeWindowVisits = 1024
	MinTimeWindow       = Duration(time.Second)
	MaxTimeWindow       = Duration(24 * time.Hour)
)

// OverPayload says a value of size bytes is over MaxPayloadBytes, in the
// words every refusal of one uses: what it is, and both sizes.
func OverPayload(what string, size int) string {
	return fmt.Sprintf("%s %d KiB, over the %d KiB Temporal may carry in one payload", what, size>>10, MaxPayloadBytes>>10)
}
