package workflows

import (
	"encoding/json"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/handoff"
	"github.com/unstuck-dev/unstuck/workflows/life"
	"github.com/unstuck-dev/unstuck/workflows/person"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// The run's waits for a person (approvals, a reply, a person agent, the
// one way they all wait) are package person's: it owns their state,
// kept by the runner. This file wires it to the run.

// person is the run's waits for a person, over the runner's state. Made
// for each use, so it always asks the runner it is called on.
func (r *runner) person() *person.Waits {
	return person.New(personHost{r}, &r.personState)
}

// personHost is what the waits for a person ask of the run.
type personHost struct{ r *runner }

var _ person.Host = personHost{}

// personGates are the change ids of the waits' gates.
var personGates = map[person.Gate]string{
	person.GateAnswerPending:        versionAnswerPending,
	person.GateNotify:               versionNotify,
	person.GateApprovalDeadline:     versionApprovalDeadline,
	person.GatePeople:               versionPeople,
	person.GateHumanPeople:          versionHumanPeople,
	person.GateInterruptedApprovals: versionInterruptedApprovals,
}

func (h personHost) Spec() *config.Resolved           { return h.r.run.Spec }
func (h personHost) Trace() *trace.Trace              { return &h.r.run.Trace }
func (h personHost) HandoffPath() []string            { return h.r.run.HandoffPath }
func (h personHost) Phase() signals.Phase             { return h.r.run.Phase }
func (h personHost) ShowDetails(ctx workflow.Context) { h.r.showDetails(ctx) }
func (h personHost) Checkpoint(id string)             { h.r.edit().Checkpoint(id) }
func (h personHost) OutputSchema() *jsonschema.Schema { return h.r.outputSchema }
func (h personHost) UnknownTool(name string) string {
	return unknownTool(name, toolNames(h.r.run.Spec))
}

// HumanApproval is the shape's answer: only a graph has human nodes.
func (h personHost) HumanApproval(node string) config.Approval {
	return h.r.shape.humanApproval(node)
}

func (h personHost) SetPhase(ctx workflow.Context, phase signals.Phase) error {
	return h.r.setPhase(ctx, phase)
}

func (h personHost) Count(ctx workflow.Context, name string, n int64, keyValues ...string) {
	h.r.count(ctx, name, n, keyValues...)
}

func (h personHost) Gate(ctx workflow.Context, g person.Gate) bool {
	return versionOf(ctx, personGates[g], 1) >= 1
}

func (h personHost) AddNode(ctx workflow.Context, n signals.Node, args, output any) string {
	if args != nil {
		n.Args = mustJSON(args)
	}
	node := h.r.addNode(ctx, Node{Node: n, Step: h.r.run.Step})
	if output != nil {
		node.Output = mustJSON(output)
	}
	return node.ID
}

func (h personHost) FinishNode(ctx workflow.Context, id string, output any, errText string) {
	var raw []byte
	if output != nil {
		raw = mustJSON(output)
	}
	h.r.finishNode(ctx, id, raw, errText)
}

func (h personHost) RanAs(id string, ranAs any) {
	if n := h.r.run.node(id); n != nil {
		n.RanAs = mustJSON(ranAs)
	}
}

func (h personHost) CheckArgs(tool config.Tool, args json.RawMessage) string {
	return h.r.checkArgs(tool, args)
}

func (h personHost) HumanTimeout() time.Duration { return humanTimeout(h.r.run.Spec) }
func (h personHost) Forget(node string)          { h.r.waits.Forget(node) }
func (h personHost) Interrupting() bool          { return h.r.life.Interrupting() }
func (h personHost) Switching() bool             { return h.r.life.Switching() }

func (h personHost) Started(ctx workflow.Context, node string) time.Time {
	return h.r.waits.Started(ctx, node)
}

func (h personHost) Paused(end person.End) error {
	if end == person.Switching {
		return errSwitching
	}
	return errInterrupted
}

func (h personHost) Cancelled(ctx workflow.Context, node string, err error) error {
	if cancelled(ctx, err) {
		return h.r.cancelled(ctx, node)
	}
	return err
}

func (h personHost) HeldHuman() string {
	if n := h.r.waiting().HeldHuman(); n != nil {
		return n.ID
	}
	return ""
}

func (h personHost) TakeHeldHuman()                           { h.r.waiting().TakeHeldHuman() }
func (h personHost) ApplyEdit(ctx workflow.Context) error     { return h.r.applyAndContinue(ctx) }
func (h personHost) ContinueAsNew(ctx workflow.Context) error { return h.r.continueAsNew(ctx) }

func (h personHost) ContinueWaiting(ctx workflow.Context, human string) error {
	return h.r.waiting().Continue(ctx, stepWaits{human: human})
}

func (h personHost) Stop(ctx workflow.Context, reason string) error { return h.r.stop(ctx, reason) }

func (h personHost) HandBack(ctx workflow.Context, to string, reply *signals.ReplyRequest, parent string) (bool, string, error) {
	took, res, err := h.r.handoffs().HandOff(ctx, handoff.Ask{
		Trigger: handoff.TriggerReturn, To: to, Reason: "other", Summary: reply.Text, Audit: reply.Audit, Parents: []string{parent},
	})
	if err != nil || took != "" {
		return took != "", "", err
	}
	return false, h.r.run.node(res.NodeID).Error, nil
}

func (h personHost) Unanswered() string {
	switch pending := h.r.life.Pending(); {
	case pending == life.Edit && h.r.edit().Waits():
		return signals.Edit
	case pending == life.Handoff && h.r.handoffs().Waits():
		return signals.Handoff
	}
	return ""
}

func (h personHost) NotCarried(ctx workflow.Context, update string, err error) {
	if update == signals.Edit {
		h.r.edit().NotCarried(ctx, err)
		return
	}
	h.r.handoffs().NotCarried(ctx, err)
}
