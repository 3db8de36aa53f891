package workflows

import (
	"errors"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/person"
)

// visitHuman waits at human node at for a person's reply, as its
// approval block asks (reply_asks.go): a condition that is false passes
// the node on unasked, a completed human node noting it; a deadline that
// approves passes it on too.
func (g *graphShape) visitHuman(ctx workflow.Context, at string, n config.GraphNode) visitResult {
	r := g.r
	d := replyAsk{r: r, a: n.Approval}.decide(ctx)
	if !d.Ask {
		node := r.addNode(ctx, Node{Node: signals.Node{
			Kind: signals.KindHuman, Status: signals.StatusCompleted, Parents: r.run.Frontier, GraphNode: at, Note: d.Note,
		}, Step: r.run.Step})
		r.run.Visited(node.ID)
		return visitResult{ok: true, event: policies.HumanNodeEvent(at, true)}
	}
	got, err := r.person().AwaitReply(ctx, person.Ask{Why: withNote("graph node "+at, d.Note), GraphNode: at, Approval: n.Approval})
	r.run.tagGraphNode(got.Node, at)
	switch {
	case errors.Is(err, errSwitching):
		return visitResult{waits: stepWaits{human: got.Node}}
	case err != nil:
		return visitResult{stopErr: err}
	case got.TimedOut:
		return visitResult{ok: false, errText: "no reply", event: policies.HumanNodeEvent(at, false)}
	}
	if got.Reply != nil && len(got.Reply.Output) > 0 {
		r.run.State["human"] = r.stateValue(decodeOrString(got.Reply.Output))
	}
	return visitResult{ok: true, event: policies.HumanNodeEvent(at, true)}
}
