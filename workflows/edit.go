package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/edit"
	"github.com/unstuck-dev/unstuck/workflows/life"
	"github.com/unstuck-dev/unstuck/workflows/model"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// A person's edits and forks are package edit's: whether one applies, the
// edit accepted and its answer, applying it, the checkpoints it restores,
// State rebuilt, and the fork's child workflow. This file wires it to the
// run; edit_resume.go finishes the edited step in the next generation,
// fork.go starts a fork's run.

// edit is the run's edits, over the run's state as it is now.
func (r *runner) edit() *edit.Edits {
	run := r.run
	return edit.New(edit.Parts{
		Memory: &r.edits, Trace: &run.Trace, Life: &r.life,
		Task: &run.Input.Task, Input: &run.Input.Input, State: &run.State,
		At: edit.Counters{
			Escape: &run.LoopEscape, Walk: &run.GraphWalk, Step: &run.Step,
			Escalations: &run.Escalations, EscalationsDropped: &run.EscalationsDropped, DroppedRungs: &run.DroppedRungs,
			OutputFailures: &run.OutputFailures, LastError: &run.LastError,
		},
		Host: editHost{r},
	})
}

// applyAndContinue carries out what interrupted the run, a person's edit
// or handoff, and continues as new: from the edited node, or with the
// agent the run was handed to.
func (r *runner) applyAndContinue(ctx workflow.Context) error {
	if r.life.Pending() == life.Handoff {
		return r.handoffs().Apply(ctx)
	}
	r.edit().ApplyAccepted(ctx)
	return r.continueAsNew(ctx)
}

// editHost is what the edits ask of the run.
type editHost struct{ r *runner }

var _ edit.Host = editHost{}

func (h editHost) Spec() *config.Resolved           { return h.r.run.Spec }
func (h editHost) Generation() int                  { return h.r.run.Generation }
func (h editHost) IsArchived(id string) bool        { return h.r.run.isArchived(id) }
func (h editHost) RefuseArchived(id string) error   { return archivedEdit(h.r.run, id) }
func (h editHost) IsMessage(n *trace.Node) bool     { return isMessage(n) }
func (h editHost) LastHandoff() int                 { return h.r.run.lastHandoff() }
func (h editHost) CountEdit(ctx workflow.Context)   { h.r.count(ctx, MetricEdits, 1) }
func (h editHost) SendWhole()                       { h.r.run.sendWhole() }
func (h editHost) NoResume()                        { h.r.run.Resume = nil }
func (h editHost) Graph() bool                      { return h.r.shape.graph() }
func (h editHost) JSON(v any) json.RawMessage       { return mustJSON(v) }
func (h editHost) IsObject(b []byte) bool           { return isJSONObject(b) }
func (h editHost) ShortText(s string, n int) string { return shortText(s, n) }
func (h editHost) ErrorText(err error) string       { return errorText(err) }

func (h editHost) WaitsFor(call string) string {
	tool, _ := h.r.person().ApprovalTool(call)
	return tool
}

func (h editHost) WaitsOutOf(node string) string { return h.r.parked.Of(node) }

func (h editHost) CheckArgs(tool config.Tool, args json.RawMessage) string {
	return h.r.checkArgs(tool, args)
}

func (h editHost) AddNode(ctx workflow.Context, n signals.Node) string {
	return h.r.addNode(ctx, Node{Node: n, Step: h.r.run.Step}).ID
}

func (h editHost) SetPhase(ctx workflow.Context, phase signals.Phase) error {
	return h.r.setPhase(ctx, phase)
}

func (h editHost) Go(ctx workflow.Context, where string, f func(workflow.Context)) {
	h.r.guard.goGuarded(ctx, where, f, nil)
}

func (h editHost) ConversationEdited(ctx workflow.Context, node string, fork bool) {
	h.r.chat().Edited(ctx, node, fork)
}

func (h editHost) ResumeAt(request string, args map[string]edit.Args) {
	h.r.run.Resume = &editResume{Request: request, Args: args}
}

func (h editHost) Fork(from, node string, edit json.RawMessage) (string, any) {
	return WorkflowName, AgentInput{Agent: h.r.run.Spec.Agent.Name, From: &ForkFrom{WorkflowID: from, NodeID: node, Edit: edit}}
}

// NodeWrite is the State path a graph's tool node writes (its
// output_path), nil for none.
func (h editHost) NodeWrite(node string) *refs.Path { return h.r.shape.nodeWrite(node) }

func (h editHost) Reply(n *trace.Node, what string) (model.Record, error) {
	var rec replyRecord
	err := decodeRecorded(n, what, n.Output, &rec)
	return model.Record(rec), err
}

func (h editHost) ParseArgs(text string) (json.RawMessage, string) { return parseArgs(text) }

func (h editHost) UnknownTool(name string) string {
	return unknownTool(name, toolNames(h.r.run.Spec))
}
