package handoff

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// Host is what the handoffs ask of the run they keep.
type Host interface {
	// Spec is what the run decides on now (its agent changes when the
	// run is handed over).
	Spec() *config.Resolved
	// Generation is the run's generation; Task the task it was given.
	Generation() int
	Task() string
	// Editing is the node of the edit the run accepted.
	Editing() string
	// AddNode records n at the run's step, and answers its id.
	AddNode(ctx workflow.Context, n signals.Node) string
	// FinishNode settles node id with output (nil: none) or errText.
	FinishNode(ctx workflow.Context, id string, output json.RawMessage, errText string)
	// Failed notes errText as the run's last error.
	Failed(errText string)
	// Count adds n to the run's counter name, tagged by key-value pairs.
	Count(ctx workflow.Context, name string, n int64, keyValues ...string)
	// Resolve resolves agent to the spec it runs with (an activity, shown
	// as summary).
	Resolve(ctx workflow.Context, agent, summary string) (*config.Resolved, error)
	// Loads reads the agents' live load and success rates (an activity).
	Loads(ctx workflow.Context, req activities.RegistryRequest) ([]activities.AgentLoad, error)
	// Context is what the agent taking the run over reads (JSON, within
	// its bound); an error is the run's stop (a recorded value it read
	// does not decode).
	Context(ctx workflow.Context, c ContextFor) (json.RawMessage, error)
	// Become makes the run spec's agent's, with the loop escape, graph
	// walk, step ceiling and budget raises of its own.
	Become(spec *config.Resolved)
	// Read decodes node n's recorded value raw (what names it) into v;
	// one that does not decode is noted, for Decoded to stop on.
	Read(n *trace.Node, what string, raw json.RawMessage, v any)
	// Decoded runs read with nothing noted, then stops the run on the
	// first value read noted (nil: none, or a run recorded before such a
	// stop).
	Decoded(ctx workflow.Context, read func()) error
	// Cancelled settles node id and the phase of a cancelled run, and
	// answers the cancellation.
	Cancelled(ctx workflow.Context, id string) error
	// Stop stops the run with the report, and answers its error.
	Stop(ctx workflow.Context, reason string) error
	// ContinueAsNew continues the run as new, as the agent it is with.
	ContinueAsNew(ctx workflow.Context) error
	// Unavailable refuses message name, which this version does not take.
	Unavailable(name string) error
}

// ContextFor is what a takeover's context is built for.
type ContextFor struct {
	Reason, Summary, Suggested string
	// Trigger is what asked for the handoff; Note, when the agents' load
	// could not be read, says so.
	Trigger, Note string
	// Path is the handoff path with the agent taking over last.
	Path []string
	// Flat: the run was handed over before, and the earlier context is
	// referred to, not nested (version handoff-flat).
	Flat bool
}

// Version asks a version gate (workflows.versionOf).
type Version func(ctx workflow.Context, changeID string, max workflow.Version) workflow.Version

// Gates are the ids of the version gates the handoffs ask, each asked
// where its rule decides otherwise than the one before it.
type Gates struct {
	Handoff, Refusals, Loads, Flat, HandingOver string
}
