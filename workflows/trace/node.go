package trace

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// Node is a trace node plus what the engine needs to rebuild the
// conversation from it.
type Node struct {
	signals.Node
	// ModelCallID is the model's id of a call, answered by the tool
	// message of the call's result.
	ModelCallID string `json:"model_call_id,omitempty"`
	// RanAs is what a person changed before the call ran (modify or
	// replace); the model is told, so it does not report its own version.
	RanAs json.RawMessage `json:"ran_as,omitempty"`
	Step  int             `json:"step,omitempty"`
	// Class is how a failed call failed (the loop detector's outcome), kept
	// so a call an edit keeps is seen as it was.
	Class policies.Class `json:"class,omitempty"`
	// Settled orders the completed calls (Trace.Settles); Executed says
	// the tool ran (or the effect ledger answered for it): an identical
	// write re-issued after the call is invalidated is not run twice.
	Settled  int  `json:"settled,omitempty"`
	Executed bool `json:"executed,omitempty"`
	// Ran: the tool activity was started (whatever came of it); CallKey is
	// the call id its Idempotency-Key was made of (the node's own, or an
	// earlier try's: the pipeline's ledger stage, workflows/call_stages.go).
	Ran     bool   `json:"ran,omitempty"`
	CallKey string `json:"call_key,omitempty"`
	// Answered: an invalidated write that a standing call has answered
	// for since (the effect ledger gave its result back, or a person had
	// it run again): the ledger does not give it again.
	Answered bool `json:"answered,omitempty"`
	// Superseded: a call taken while its reply streamed that the whole
	// reply does not ask for (workflows/stream.go); it is not part of the
	// conversation, and no call of the reply is it.
	Superseded bool `json:"superseded,omitempty"`
	// Checkpoint, on a request or human node, is the run's loop escape
	// and counters as they were when the node began: an edit from there
	// restores them (only the latest few are kept).
	Checkpoint json.RawMessage `json:"checkpoint,omitempty"`
	// Spent is what the node cost: a request's replies, a call's tool
	// activities. A fork counts its spend from the nodes it keeps.
	Spent *policies.Spend `json:"spent,omitempty"`
	// NotRun is why the node did not run because of the run's life (an
	// edit, a person's handoff, a message that cut in). It is not
	// carried, so the carried state and the run query keep their shape:
	// a loaded run derives it from the trace's words.
	NotRun life.NotRun `json:"-"`
}

// AskedTool is the tool the call asked for: the model's (or the graph
// node's) call, not a fallback that served it.
func (n *Node) AskedTool() string {
	if n.FallbackOf != "" {
		return n.FallbackOf
	}
	return n.Tool
}

// StoppedBeforeRun says a call failed only because the run's life stopped
// it before it ran (an edit, a person's handoff): for an edit it has not
// finished, so it runs again.
func (n *Node) StoppedBeforeRun() bool {
	return n.Kind == signals.KindCall && n.Status == signals.StatusFailed && n.NotRun.Again()
}
