package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/handoff"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// A handoff passes the run, with its whole context, to the agent best
// placed to finish it: package handoff's, which owns its state (the run's
// HandoffPath, RulesSeen and RulesSpent, and what a generation remembers
// of its handoffs). This file wires it to the run; handoff_context.go
// builds the context the agent taking over reads.

// handoffs is the run's handoffs, over the run's state as it is now.
func (r *runner) handoffs() *handoff.Handoffs {
	return handoff.New(handoff.Parts{
		Memory: &r.handoffMemory, Path: &r.run.HandoffPath, RulesSeen: &r.run.RulesSeen, RulesSpent: &r.run.RulesSpent,
		Trace: &r.run.Trace, Life: &r.life, Host: handoffHost{r},
		ErrorText: errorText, Version: versionOf, Gates: handoffGates, Metric: MetricHandoffs,
	})
}

// handoffGates are the gates the handoffs ask (versions.go).
var handoffGates = handoff.Gates{
	Handoff: versionHandoff, Refusals: versionHandoffRefusals, Loads: versionHandoffLoads,
	Flat: versionHandoffFlat, HandingOver: versionHandingOver,
}

// handoffHost is what the handoffs ask of the run (handoff.Host).
type handoffHost struct{ r *runner }

var _ handoff.Host = handoffHost{}

func (h handoffHost) Spec() *config.Resolved { return h.r.run.Spec }
func (h handoffHost) Generation() int        { return h.r.run.Generation }
func (h handoffHost) Task() string           { return h.r.run.Input.Task }
func (h handoffHost) Editing() string        { return h.r.edit().Applying() }
func (h handoffHost) Failed(errText string)  { h.r.run.LastError = errText }
func (h handoffHost) Unavailable(name string) error {
	return notYet(name)
}

func (h handoffHost) AddNode(ctx workflow.Context, n signals.Node) string {
	return h.r.addNode(ctx, Node{Node: n, Step: h.r.run.Step}).ID
}

func (h handoffHost) FinishNode(ctx workflow.Context, id string, output json.RawMessage, errText string) {
	h.r.finishNode(ctx, id, output, errText)
}

func (h handoffHost) Count(ctx workflow.Context, name string, n int64, keyValues ...string) {
	h.r.count(ctx, name, n, keyValues...)
}

func (h handoffHost) Resolve(ctx workflow.Context, agent, summary string) (*config.Resolved, error) {
	return resolveAgent(ctx, agent, summary)
}

func (h handoffHost) Loads(ctx workflow.Context, req activities.RegistryRequest) ([]activities.AgentLoad, error) {
	var loads []activities.AgentLoad
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, withSummary(registryOptions(), "read the agents' load for a handoff")), acts.ReadRegistry, req).Get(ctx, &loads)
	return loads, err
}

// Context builds the context of a takeover from the run as the agent
// handing over leaves it.
func (h handoffHost) Context(ctx workflow.Context, c handoff.ContextFor) (json.RawMessage, error) {
	var hc HandoffContext
	build := func() {
		hc = newHandoffContext(h.r.run, workflow.GetInfo(ctx).WorkflowExecution.ID, c.Reason, c.Summary, c.Suggested, c.Flat)
	}
	if err := h.Decoded(ctx, build); err != nil {
		return nil, err
	}
	hc.HandoffPath = c.Path
	hc.Metadata["trigger"] = c.Trigger
	if c.Note != "" {
		hc.Metadata["note"] = c.Note // the load could not be read
	}
	return mustJSON(fitHandoffContext(hc)), nil
}

// Become makes the run the agent of spec's.
func (h handoffHost) Become(spec *config.Resolved) {
	run := h.r.run
	run.Spec = spec
	run.AgentSince = run.Step
	run.LoopEscape.HandedOver()
	run.GraphWalk = GraphWalk{}
	run.sendWhole()
	run.Fitted = false
	run.OutputFailures = 0
	run.Resume = nil
	// A person raised the budget of the agent before: the next agent's
	// budget is its own (the spend goes on).
	run.Spending.NewAgent()
}

func (h handoffHost) Read(n *trace.Node, what string, raw json.RawMessage, v any) {
	h.r.run.readRecorded(n, what, raw, v)
}

func (h handoffHost) Decoded(ctx workflow.Context, read func()) error {
	h.r.run.undecoded = nil
	read()
	return h.r.stopUndecodable(ctx, h.r.run.undecoded)
}

func (h handoffHost) Cancelled(ctx workflow.Context, id string) error { return h.r.cancelled(ctx, id) }
func (h handoffHost) Stop(ctx workflow.Context, reason string) error  { return h.r.stop(ctx, reason) }
func (h handoffHost) ContinueAsNew(ctx workflow.Context) error        { return h.r.continueAsNew(ctx) }

// handoffPath is every agent the run has been with, in order, its agent
// now last.
func (run *Run) handoffPath() []string { return handoff.PathOf(run.HandoffPath, run.Spec.Agent.Name) }

// lastHandoff is the index in the trace of the handoff that gave the run
// to its agent now (-1 when it never changed hands): the conversation
// starts again there, and nothing before it can be edited.
func (run *Run) lastHandoff() int { return handoff.Last(&run.Trace) }

// nodeIndex is a node's place in the trace (-1 when it is not there).
func (run *Run) nodeIndex(id string) int { return run.Index(id) }
