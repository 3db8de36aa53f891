package edit

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/model"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// Host is what the edits ask of the run they change.
type Host interface {
	Shape
	Codec
	// Spec is what the run decides on now (its agent changes at a
	// handoff); Generation is the run's generation.
	Spec() *config.Resolved
	Generation() int
	// IsArchived says whether node id is in the trace's archived part;
	// RefuseArchived is the refusal of an edit there (fork it instead).
	IsArchived(id string) bool
	RefuseArchived(id string) error
	// IsMessage says whether a task node is a conversation's message (or
	// the wait for one), not the run's task.
	IsMessage(n *trace.Node) bool
	// LastHandoff is the index in the trace of the handoff that gave the
	// run to its agent now, -1 when it never changed hands.
	LastHandoff() int
	// WaitsFor is the tool a call waiting for approval would run (its
	// own, or a fallback standing in), "" when it waits for nothing.
	WaitsFor(call string) string
	// WaitsOutOf is the service a node waits out an outage of (a tool, or
	// "model <name>"), "" when it waits out none.
	WaitsOutOf(node string) string
	// CheckArgs is what is wrong with args for tool ("" when they fit).
	CheckArgs(tool config.Tool, args json.RawMessage) string
	// AddNode adds n to the trace at the run's step, and answers its id;
	// CountEdit counts an edit or a fork recorded.
	AddNode(ctx workflow.Context, n signals.Node) string
	CountEdit(ctx workflow.Context)
	// SetPhase shows the run's phase.
	SetPhase(ctx workflow.Context, phase signals.Phase) error
	// Go runs f in a coroutine of its own, under the run's guard.
	Go(ctx workflow.Context, where string, f func(workflow.Context))
	// ConversationEdited makes the turn of node the current one (a fork
	// leaves the source's later turns behind).
	ConversationEdited(ctx workflow.Context, node string, fork bool)
	// SendWhole makes the next model request carry the whole conversation.
	SendWhole()
	// ResumeAt is where the next generation picks up: the calls of
	// request that the edit did not keep run again (none: the next model
	// request follows), the calls of args (by model call id) with a
	// person's arguments. NoResume: nothing is picked up.
	ResumeAt(request string, args map[string]Args)
	NoResume()
	// Fork is the workflow a fork of run from at node starts, and its
	// input (edit, the edit it applies there).
	Fork(from, node string, edit json.RawMessage) (workflow string, input any)
}

// Shape is what differs between a free-form run and a graph, as an edit
// asks it.
type Shape interface {
	// Graph says whether the run walks a graph.
	Graph() bool
	// NodeWrite is the State path a graph's tool node writes its result
	// to (its output_path), nil for none.
	NodeWrite(node string) *refs.Path
}

// Codec is how the run reads and writes what it records.
type Codec interface {
	// JSON encodes a value the run built itself (one JSON cannot hold
	// stops the run).
	JSON(v any) json.RawMessage
	// Reply is the model's reply request node n keeps, read as what; its
	// error names the node (and the run's own type for a reply).
	Reply(n *trace.Node, what string) (model.Record, error)
	// ParseArgs checks that a call's arguments are a JSON object, naming
	// the problem.
	ParseArgs(text string) (json.RawMessage, string)
	// IsObject says whether b is a JSON object.
	IsObject(b []byte) bool
	// ShortText is s cut to at most n bytes, marked where cut.
	ShortText(s string, n int) string
	// ErrorText is what an error says to a person.
	ErrorText(err error) string
	// UnknownTool says a call names a tool the agent does not have, and
	// names the ones it has.
	UnknownTool(name string) string
}

// Args are a call's new arguments and who gave them, as the next
// generation carries them.
type Args struct {
	signals.Audit
	Args json.RawMessage `json:"args"`
}
