package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
)

// stepEnd is how a step of either shape ended, for the engine to settle:
// what it left waiting, its own stop, the run's output if it gave one,
// and its events for the loop detector.
type stepEnd struct {
	waits   stepWaits
	stopErr error
	output  *stepOutput
	// events are the step's events for the loop detector, in order; asked
	// only once nothing ended the run with the step.
	events func() []stepEvent
	// rung: the ladder's human rung carried into this generation, which
	// answers the step's loop in the detector's place (rung_human.go).
	rung *escalation
	// visit is where a graph walk goes on from once a rung's wait carried
	// into the next generation is answered (nil in a free-form run).
	visit *resumePoint
	// bare is a free-form reply without calls: its content is the output,
	// or it answered nothing (bare_reply.go).
	bare *bareReply
}

// stepOutput is the run's output and the node it follows; graphNode, in
// a graph run, is the node that gave it.
type stepOutput struct {
	parent    string
	value     json.RawMessage
	graphNode string
}

// stepEvent is one event for the loop detector: where is the graph node
// ("" in a free-form run), nodeID the trace node.
type stepEvent struct {
	where, nodeID string
	event         policies.LoopEvent
}

// settle ends a step the same way in both shapes: what ends the run with
// the step comes first (endOfStep); then a reply without calls
// (settleBare), the output (the run's, or a conversation's turn: output),
// or a handoff the step's reply asked for; then the step's events go to
// the loop detector (settleLoop). esc is the rung that answered a loop, for the shape to
// choose what comes next (a graph takes the rung's exit).
func (eng engine) settle(ctx workflow.Context, e stepEnd) (done bool, res *AgentResult, esc *escalation, err error) {
	r := eng.r
	if e.bare != nil && eng.bareReplyFirst(ctx) {
		return eng.settleBare(ctx, *e.bare)
	}
	if ended, err := eng.endOfStep(ctx, e.waits, e.stopErr); ended {
		return true, nil, nil, err
	}
	if e.bare != nil {
		return eng.settleBare(ctx, *e.bare)
	}
	th := r.handoffs().TakeCall()
	if o := e.output; o != nil {
		if th != nil {
			r.finishNode(ctx, th.Node, nil, "not carried out: the same reply finished the task with "+FinalOutputTool)
		}
		done, res, err := r.outputs().output(ctx, *o)
		return done, res, nil, err
	}
	if th != nil {
		return true, nil, nil, r.handoffs().ForTool(ctx, th)
	}
	esc, done, err = eng.settleLoop(ctx, e)
	return done, nil, esc, err
}

// settleLoop feeds the step's events, in order, to the loop detector
// until a rung answers one (or takes the rung carried into this
// generation), and ends the step as the rung says (afterRung): each
// distinct event of a step is one observation, so the rest of the step's
// events are not held against the run once a rung acted.
func (eng engine) settleLoop(ctx workflow.Context, e stepEnd) (esc *escalation, done bool, err error) {
	r := eng.r
	esc = e.rung
	if esc == nil && e.events != nil {
		for _, ev := range e.events() {
			loop := r.escape().Observe(ctx, ev.where, ev.nodeID, ev.event)
			if loop == nil {
				continue
			}
			r.count(ctx, MetricLoopsDetected, 1, "kind", loop.Kind)
			if esc = r.escalate(ctx, loop, ev.where); esc != nil {
				break
			}
		}
	}
	if esc == nil {
		return nil, false, nil
	}
	if r.life.Interrupting() && ctx.Err() == nil && r.shape.editBeforeRung(ctx) {
		// An edit that came during the rung's wait is carried out
		// before the rung's outcome.
		return esc, true, nil
	}
	if esc.held != nil && e.visit != nil {
		esc.held.Visit = e.visit // the edge is taken once the rung is answered
	}
	ended, err := eng.afterRung(ctx, esc)
	return esc, ended, err
}
