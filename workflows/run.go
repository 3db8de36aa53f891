package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/budget"
	"github.com/unstuck-dev/unstuck/workflows/chat"
	"github.com/unstuck-dev/unstuck/workflows/ladder"
	"github.com/unstuck-dev/unstuck/workflows/life"
	"github.com/unstuck-dev/unstuck/workflows/model"
	"github.com/unstuck-dev/unstuck/workflows/outage"
	"github.com/unstuck-dev/unstuck/workflows/trace"
	"github.com/unstuck-dev/unstuck/workflows/walk"
)

// Run is the whole memory of a run and the continue-as-new input: queries
// read it, the conversation is derived from it, nothing keeps a second copy.
// Its parts are embedded, so their fields read as the run's own and its JSON
// stays flat: runs carried by earlier versions decode unchanged.
type Run struct {
	Input AgentInput       `json:"input"`
	Spec  *config.Resolved `json:"spec"` // what the workflow decides on; no address, no secret
	Trace
	Progress
	Conversation
	LoopEscape
	GraphWalk
	budget.Spending
	// Outages: when the run began to wait out each tool that is down
	// (package outage; pipeline.park).
	Outages outage.Since `json:"outages,omitzero"`
	// IgnoredSignals counts signals the run could not act on, in all and
	// by kind (the trace records at most a bounded number of each kind).
	IgnoredSignals int            `json:"ignored_signals,omitempty"`
	IgnoredByKind  map[string]int `json:"ignored_by_kind,omitempty"`
	// handoffMessages caches, by handoff node, the message its target
	// reads (handoffMessage joins the chain of earlier contexts, work
	// that would otherwise be done again at every step); not carried.
	handoffMessages map[string]activities.Message
	// undecoded is the first recorded value a reader could not decode
	// since it was cleared (recorded.go).
	undecoded error
}

// Trace is the trace graph: its nodes and its frontier, owned by package
// trace (its fields stay the run's own in JSON).
type Trace = trace.Trace

// Progress is how far the run has come and what it holds.
type Progress struct {
	Step        int           `json:"step"`
	Generation  int           `json:"generation"`
	Phase       signals.Phase `json:"phase"`
	State       refs.State    `json:"state"` // decodes its numbers exact (refs.Exact)
	LastError   string        `json:"last_error,omitempty"`
	HandoffPath []string      `json:"handoff_path"`
	Escalations []Escalation  `json:"escalations"`
	// EscalationsDropped counts the oldest escalations no longer listed,
	// DroppedRungs them by rung (ladder/record.go).
	EscalationsDropped int            `json:"escalations_dropped,omitempty"`
	DroppedRungs       map[string]int `json:"dropped_rungs,omitempty"`
	// OutputFailures counts outputs refused by the output schema, bounded
	// by the agent's repair attempts.
	OutputFailures int `json:"output_failures"`
	// ChainKeys: the chain's first run id is part of its calls' idempotency
	// keys (decided when the chain started, kept for all its runs).
	ChainKeys bool `json:"chain_keys,omitempty"`
	// Resume is where a run continued as new by an edit picks up.
	Resume *editResume `json:"resume,omitempty"`
	// AgentSince is the step at which the agent now with the run took it
	// over (0 for the first agent): its step ceiling counts from there.
	AgentSince int `json:"agent_since,omitempty"`
	// Turn is a conversation's state (package chat): the messages accepted and
	// not in the trace yet, its last output, and the step its turn began.
	Turn chat.State `json:"turn,omitzero"`
	// RulesSeen: the user's words the handoff rules have read (each fires
	// once); RulesSpent: a rule fired and no agent could take the run, so
	// the rules rest until another agent has it.
	RulesSeen  int  `json:"rules_seen,omitempty"`
	RulesSpent bool `json:"rules_spent,omitempty"`
	// ModelChoice is the model the run's requests go to, owned by package
	// model (embedded here, where its fields were, so the run's JSON is
	// unchanged).
	ModelChoice
	// Unverified counts the calls that failed their check
	// (pipeline.unverified), in every generation.
	Unverified int `json:"unverified,omitempty"`
	// offerHandoff: the model is offered the handoff tool (the agent has
	// handoffs, in a version that hands over); set each generation.
	offerHandoff bool
}

// Conversation says what the model activity already has, so the next
// request carries only the new messages.
type Conversation struct {
	SentMessages int    `json:"sent_messages"`
	LastReplyID  string `json:"last_reply_id,omitempty"`
	// Fitted: the conversation outgrew the payload limit once, and is since
	// fitted to it (oldest observations cut, with a marker).
	Fitted bool `json:"fitted,omitempty"`
	// ClearedBefore: the results of tool calls of steps before this one
	// are cleared from the conversation (policies.context; the trace
	// keeps them whole).
	ClearedBefore int `json:"cleared_before,omitempty"`
}

// sendWhole makes the next model request carry the whole conversation:
// what the model activity has is no longer its start (a summary, a fit,
// an edit, a rollback, a handoff, an archive changed it).
func (c *Conversation) sendWhole() { c.SentMessages, c.LastReplyID = 0, "" }

// ModelChoice is the model the run asks and its fallbacks, owned by
// package model (its fields stay the run's own in JSON).
type ModelChoice = model.State

// LoopEscape is the loop detector, the breakers and the ladder, owned by
// package ladder (its fields stay the run's own in JSON).
type LoopEscape = ladder.State

// GraphWalk is where a graph run is, how often each node was visited, and
// the edges a rollback excluded, package walk's record (its fields stay
// the run's own in JSON).
type GraphWalk = walk.Walk

// resumePoint is a graph node already visited, with its outcome.
type resumePoint = walk.Point

// Node is a trace node, package trace's.
type Node = trace.Node

// node finds a node by id.
func (r *Run) node(id string) *Node { return r.Trace.Node(id) }

// mustJSON marshals values the engine built itself. A value JSON cannot
// hold (a NaN, an invalid raw message) is a bug; it stops the run with a
// report (the guard: guard.go) rather than failing its workflow tasks for
// ever.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(unencodable{what: fmt.Sprintf("%T", v), err: err})
	}
	return b
}

// unencodable is mustJSON's panic.
type unencodable struct {
	what string
	err  error
}

// rawOrString keeps text that is JSON as it is and wraps anything else in
// a JSON string, so a trace can always show what the model sent.
func rawOrString(text string) json.RawMessage {
	if json.Valid([]byte(text)) {
		return json.RawMessage(text)
	}
	return mustJSON(text)
}

// addNode appends a node to the trace (trace.Trace.Add), by the agent
// now with the run unless it names another, at the workflow's time.
func (r *runner) addNode(ctx workflow.Context, n Node) *Node {
	return r.run.Trace.Add(n, r.run.Spec.Agent.Name, workflow.Now(ctx))
}

// skipNode settles a node as skipped, saying why.
func (r *runner) skipNode(ctx workflow.Context, id, why string) {
	r.run.Skip(id, why, workflow.Now(ctx))
}

// finishNode settles a node as completed (output) or failed (error text).
func (r *runner) finishNode(ctx workflow.Context, id string, output []byte, errText string) {
	r.run.Finish(id, output, errText, workflow.Now(ctx))
}

// notRunNode settles a node that did not run because of the run's life:
// failed, in the trace's words for why (notRunText, or text when given),
// and with why itself.
func (r *runner) notRunNode(ctx workflow.Context, id string, why life.NotRun, text string) {
	if text == "" {
		text = notRunText(why)
	}
	r.finishNode(ctx, id, nil, text)
	r.run.NotRun(id, why)
}

// noteNotRun records why a node just settled did not run.
func (run *Run) noteNotRun(id string, why life.NotRun) { run.Trace.NotRun(id, why) }
