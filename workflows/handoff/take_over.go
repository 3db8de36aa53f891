package handoff

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// takeOver hands the run to the agent of spec: the handoff node keeps the
// context (what the new agent reads first), and the run becomes that
// agent's, with the loop escape, graph walk and step ceiling of its own.
// The trace, State, escalations and counters stay: it is one run.
func (h *Handoffs) takeOver(ctx workflow.Context, id string, spec *config.Resolved, ask Ask, refused []signals.HandoffRefusal, note string) error {
	path := append(h.pathNow(), spec.Agent.Name)
	// A run handed over before carries the earlier context in its
	// conversation: version handoff-flat leaves it out (asked only then).
	flat := Last(h.trace) >= 0 && h.on(ctx, h.gates.Flat)
	hc, err := h.host.Context(ctx, ContextFor{
		Reason: ask.Reason, Summary: ask.Summary, Suggested: ask.Suggested,
		Trigger: ask.Trigger, Note: note, Path: path, Flat: flat,
	})
	if err != nil {
		return err
	}
	n := h.trace.Node(id)
	n.Status, n.To, n.Refused, n.At = signals.StatusCompleted, spec.Agent.Name, refused, workflow.Now(ctx).UTC()
	n.Output = hc
	// What was under way when the run was handed over will not run.
	h.trace.HandedOver(id, spec.Agent.Name, n.At)
	*h.path = path
	*h.rulesSpent = false
	h.host.Become(spec)
	return nil
}

// Last is the index in the trace of the handoff that gave the run to its
// agent now (-1 when it never changed hands): the conversation starts
// again there, and nothing before it can be edited.
func Last(t *trace.Trace) int {
	for i := len(t.Nodes) - 1; i >= 0; i-- {
		n := &t.Nodes[i]
		if n.Kind == signals.KindHandoff && n.Status == signals.StatusCompleted {
			return i
		}
	}
	return -1
}
