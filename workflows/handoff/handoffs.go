package handoff

import (
	"encoding/json"
	"slices"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/workflows/life"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// Memory is what one generation of the run remembers of its handoffs;
// the runner holds it, and only this package changes it.
type Memory struct {
	// on: the agent can hand the run over, in a version that does.
	on bool
	// person is the person's handoff accepted in this generation.
	person *pending
	// call is the handoff call of the step under way.
	call *Call
}

// Parts wire Handoffs to a run: the state they own, the run's trace and
// life, what they ask of the run, and how they ask the gates.
type Parts struct {
	Memory *Memory
	// Path, RulesSeen and RulesSpent are the run's carried HandoffPath,
	// RulesSeen and RulesSpent.
	Path       *[]string
	RulesSeen  *int
	RulesSpent *bool
	Trace      *trace.Trace
	Life       *life.Life
	Host       Host
	// ErrorText is an activity failure's message without Temporal's
	// wrapping.
	ErrorText func(error) string
	Version   Version
	Gates     Gates
	// Metric is the counter of handoffs taken and refused.
	Metric string
}

// Handoffs are a run's handoffs, over the run's state as it is now.
type Handoffs struct {
	mem        *Memory
	path       *[]string
	rulesSeen  *int
	rulesSpent *bool
	trace      *trace.Trace
	life       *life.Life
	host       Host
	errorText  func(error) string
	version    Version
	gates      Gates
	metric     string
}

// New is the handoffs of the run p wires.
func New(p Parts) *Handoffs {
	return &Handoffs{mem: p.Memory, path: p.Path, rulesSeen: p.RulesSeen, rulesSpent: p.RulesSpent,
		trace: p.Trace, life: p.Life, host: p.Host, errorText: p.ErrorText, version: p.Version, gates: p.Gates, metric: p.Metric}
}

// Start says whether this run's agent hands over (and, of kind human,
// waits for a person), and remembers it for the generation: runs
// recorded before handoffs existed did neither. The gate is asked only
// for an agent that can hand over.
func (h *Handoffs) Start(ctx workflow.Context) bool {
	spec := h.host.Spec()
	h.mem.on = spec.Agent.CanHandOff() && !startedBefore(spec) && h.on(ctx, h.gates.Handoff)
	return h.mem.on
}

// On says whether the run hands over in this generation (Start).
func (h *Handoffs) On() bool { return h.mem.on }

// on says whether the run follows gate id (asked now).
func (h *Handoffs) on(ctx workflow.Context, id string) bool { return h.version(ctx, id, 1) >= 1 }

// pathNow is every agent the run has been with, in order, its agent now
// last.
func (h *Handoffs) pathNow() []string { return PathOf(*h.path, h.host.Spec().Agent.Name) }

// PathOf is a run's handoff path (path as carried, empty before the first
// handoff) with agent, the agent it is with, last.
func PathOf(path []string, agent string) []string {
	if len(path) == 0 {
		return []string{agent}
	}
	return slices.Clone(path)
}

// live carries out a transition of the run's life: one the life refuses
// is a fault of the run's code, and fails the workflow task (as
// workflows.live).
func live(err error) {
	if err != nil {
		panic(err)
	}
}

// cancelled says whether err, or the context, is the run's cancellation.
func cancelled(ctx workflow.Context, err error) bool {
	return ctx.Err() != nil || temporal.IsCanceledError(err)
}

// mustJSON marshals values the handoffs built themselves (strings, maps
// of them, refusals), which JSON always holds.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
