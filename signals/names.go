package signals

import "strings"

// Query names.
const (
	// QueryTrace answers the run's trace graph (Trace).
	QueryTrace = "trace"
	// QueryStatus answers the run's status (Status).
	QueryStatus = "status"
	// QueryModelContext answers the conversation a model request needs.
	// It is internal: the model activity uses it to assemble its context
	// instead of receiving the whole conversation as input, which would
	// make the history grow quadratically with the run.
	QueryModelContext = "unstuck.model_context"
	// QueryRun answers the whole run, gzip-compressed JSON, as it would be
	// carried across continue-as-new. It is internal: a fork reads its
	// source run with it (also a closed one).
	QueryRun = "unstuck.run"
)

// Tool names the engine reserves and adds to every agent (handoff only to
// agents that can hand over): the model ends a task with final_output and
// hands it over with handoff.
const (
	FinalOutputTool = "final_output"
	HandoffTool     = "handoff"
)

// StreamedCall is the signal the model activity of an agent with
// stream_calls sends its own run for each tool call the model has finished
// writing while the rest of the reply still streams, so the call can start
// at once. It is internal: the run takes one only for the request in
// flight, in order, and the whole reply settles what runs.
const StreamedCall = "unstuck.streamed_call"

// RunClosing ends a message update's refusal while the run closes (it
// finishes, or continues as new): sent again in a moment, the next
// generation takes it.
const RunClosing = "send the message again in a moment"

// RunStarting is what a query answers while a run resolves its agent or
// verifies the state it carried: asked again, it answers.
const RunStarting = "the run is starting: ask again in a moment"

// RunFailedToStart begins what a query answers of a run that failed at
// its start (an unknown agent, a bad input), followed by why.
const RunFailedToStart = "the run failed at its start"

// FailedToStart reads a query's failure: whether it says the run failed
// at its start, and why. A query's failure reaches a client as text only,
// so the text is the protocol; this is its one reader.
func FailedToStart(queryErr error) (why string, ok bool) {
	if queryErr == nil {
		return "", false
	}
	_, why, ok = strings.Cut(queryErr.Error(), RunFailedToStart+": ")
	return why, ok
}

// Update and signal names: each message in is both an update (validated,
// answered) and a signal of the same name (fire and forget).
const (
	Approve = "approve"
	Budget  = "budget"
	Edit    = "edit"
	Handoff = "handoff"
	Message = "message"
	Reply   = "reply"
)

// Search attribute names the worker registers and the workflow keeps up to
// date.
const (
	AttrAgentName  = "AgentName"
	AttrAgentPhase = "AgentPhase"
)

// Phase is where a run is, as kept in the AgentPhase search attribute.
type Phase string

// Phases of a run.
const (
	PhaseRunning          Phase = "running"
	PhaseAwaitingApproval Phase = "awaiting_approval"
	PhaseAwaitingHuman    Phase = "awaiting_human"
	PhaseAwaitingUser     Phase = "awaiting_user"
	// PhaseWaitingOutage: a call's tool is down (its breaker open) and
	// the run waits it out on a durable timer (Status.Outage says what).
	PhaseWaitingOutage Phase = "waiting_outage"
	PhaseCompleted     Phase = "completed"
	PhaseStopped       Phase = "stopped"
)

// Phases are every phase, in the order docs/contract.md lists them.
var Phases = []Phase{PhaseRunning, PhaseAwaitingApproval, PhaseAwaitingHuman, PhaseAwaitingUser, PhaseWaitingOutage, PhaseCompleted, PhaseStopped}

// StoppedErrorType is the application error type of a run that stopped
// itself (step ceiling, exhausted model retries, ...); its details are the
// report, shaped like the completion result.
const StoppedErrorType = "AgentStopped"
