package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// A reply that answers nothing is told so and asked again, and each one
// is a failure the loop detector counts (whether the run does, and how
// the reply answered nothing, is package model's: model/reply.go).

// recordNoAnswer records a reply that answered nothing as a refused
// output, which tells the model what na says, and answers its node.
func (o outputs) recordNoAnswer(ctx workflow.Context, reqID, content, refusal string, na policies.NoAnswer) string {
	r := o.r
	said := content
	if refusal != "" {
		said = refusal
	}
	id := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindOutput, Status: signals.StatusRunning, Parents: []string{reqID},
		Output: rawOrString(said),
	}, Step: r.run.Step}).ID
	r.finishNode(ctx, id, nil, na.Told)
	r.run.LastError = na.Told
	r.run.Refused(id)
	return id
}
