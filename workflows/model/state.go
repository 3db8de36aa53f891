package model

import (
	"encoding/json"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// State is the model the run's requests go to, carried in the run
// (workflows.Run embeds it as ModelChoice: its fields are the run's JSON
// fields). Its fields are exported for that JSON and for reading; only
// this package changes them.
type State struct {
	// ModelAt is the place in the agent's list of models its requests go
	// to (0 its model, i its i-th fallback) since ModelSince;
	// ModelFallbacks counts the switches (fallback.go).
	ModelAt        int       `json:"model_at,omitempty"`
	ModelSince     time.Time `json:"model_since,omitzero"`
	ModelFallbacks int       `json:"model_fallbacks,omitempty"`
}

// Memory is what one generation of the run remembers of its model
// requests: not carried (a request not answered yet is asked again, from
// the start, by the next generation). The runner holds it; only this
// package reads or changes it.
type Memory struct {
	// contextVersion and streamVersion cache the versions of
	// policies.context's compaction and of streamed calls.
	contextVersion, streamVersion *workflow.Version
	// summarized: the requests that had a summary made (one each).
	summarized map[string]bool
	// compactions and longer are those of requests not answered yet: what
	// their nodes show once answered (Shown).
	compactions map[string][]Compaction
	longer      map[string]int
}

// Run is what the model call does to the run it belongs to.
type Run interface {
	// AddNode adds a node to the trace, at the run's step.
	AddNode(ctx workflow.Context, n signals.Node)
	// Count adds n to the run's counter name, tagged with key, value pairs.
	Count(ctx workflow.Context, name string, n int64, keyValues ...string)
	// OldestTurns are the turns a new summary covers: from where the
	// conversation reads the trace now to the last node before the steps
	// policies.context keeps whole (false: nothing).
	OldestTurns() (Turns, bool)
	// BesideBudget is what the run's budget leaves a request beside the
	// step's (allow tokens, 0: no bound), or why it leaves none.
	BesideBudget(ctx workflow.Context) (allow int, over string)
	// AskSummary runs the summary's activity.
	AskSummary(ctx workflow.Context, req activities.SummaryRequest) (activities.SummaryReply, error)
	// AddSummary makes the summary of turns a trace node, pays for it,
	// and answers its id; the conversation is sent whole from then on.
	AddSummary(ctx workflow.Context, turns Turns, reply activities.SummaryReply) string
	// SendWhole makes the next request carry the whole conversation: what
	// the model activity has is no longer its start.
	SendWhole()
	// RepairReads says whether the repair pipeline would read a call's
	// arguments whole by rule if it ran them.
	RepairReads(name, args string) bool
}

// Version asks a version gate (workflows.versionOf).
type Version func(ctx workflow.Context, changeID string, max workflow.Version) workflow.Version

// Gates are the ids of the version gates the model call asks.
type Gates struct {
	ModelFallback, FallbackCooldown, ModelHeartbeat, ContextClear,
	LongerReply, CutOffRepair, SummaryAfterRaise, NoAnswerLoop,
	GraphNoAnswer, StreamCalls string
}

// Metrics are the names of the counters the model call adds to.
type Metrics struct{ Fallbacks, Compactions string }

// Parts wire a Call to a run: the state it owns (State and Memory, and
// the run's field of the conversation it keeps), the run's spec and step,
// what it does to the run and how it asks the gates.
type Parts struct {
	State  *State
	Memory *Memory
	// ClearedBefore is the conversation's: the results of tool calls of
	// steps before it are cleared (compact sets it).
	ClearedBefore *int
	Spec          *config.Resolved
	Step          int
	Run           Run
	// ErrorText is an activity failure's message without Temporal's
	// wrapping.
	ErrorText func(error) string
	Version   Version
	Gates     Gates
	Metrics   Metrics
}

// Call is a run's model call, over the run's state.
type Call struct {
	s       *State
	mem     *Memory
	cleared *int
	spec    *config.Resolved
	step    int
	run     Run
	errText func(error) string
	version Version
	gates   Gates
	metrics Metrics
}

// New is the model call of the run p wires.
func New(p Parts) *Call {
	return &Call{s: p.State, mem: p.Memory, cleared: p.ClearedBefore, spec: p.Spec, step: p.Step,
		run: p.Run, errText: p.ErrorText, version: p.Version, gates: p.Gates, metrics: p.Metrics}
}

// on says whether the run follows gate id (asked now).
func (c *Call) on(ctx workflow.Context, id string) bool { return c.version(ctx, id, 1) >= 1 }

// mustJSON marshals values the call built itself (a map of strings, a
// string), which JSON always holds.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
