package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// humanWait is the run's wait for a person's reply: the human node a
// reply would answer ("" when none), whether it is the ladder's human
// rung, the reply that landed and is not taken yet, and the node a
// generation that continued as new while waiting waits at again.
type humanWait struct {
	node  string
	rung  bool
	reply *signals.ReplyRequest
	held  string
}

// waiting says whether the run waits for a reply.
func (h *humanWait) waiting() bool { return h.node != "" }

// takeReply answers the reply that landed, once.
func (h *humanWait) takeReply() *signals.ReplyRequest {
	reply := h.reply
	h.reply = nil
	return reply
}

// awaitHuman puts the run in phase awaiting_human until a reply arrives
// or the agent's human_timeout passes. The reply's text joins the
// conversation through the human node; timedOut tells the caller to move
// on (the escalation ladder climbs to its next rung). The run may
// continue as new while it waits (errSwitching; waiting_continue.go),
// the caller carrying the wait; rung: it is the ladder's human rung.
func (r *runner) awaitHuman(ctx workflow.Context, why string, rung bool) (reply *signals.ReplyRequest, nodeID string, timedOut bool, err error) {
	node := r.heldHumanNode()
	if node == nil {
		node = r.addNode(ctx, Node{Node: signals.Node{
			Kind: signals.KindHuman, Status: signals.StatusPending, Parents: r.run.Frontier,
			Args: mustJSON(map[string]string{"why": why}),
		}, Step: r.run.Step})
		r.edit().Checkpoint(node.ID)
	}
	nodeID = node.ID
	r.human.node, r.human.rung = nodeID, rung
	held := false
	defer func() {
		if !held {
			r.human.node, r.human.rung = "", false
			r.waits.forget(nodeID)
		}
	}()
	if err := r.setPhase(ctx, signals.PhaseAwaitingHuman); err != nil {
		return nil, nodeID, false, err
	}
	end, timeout, err := r.waitForPerson(ctx, personWait{
		node: nodeID, summary: "wait for a person's reply (" + nodeID + ")",
		answered: func() bool { return r.human.reply != nil },
		edits:    true, switches: true,
	})
	if err != nil {
		if cancelled(ctx, err) {
			return nil, nodeID, false, r.cancelled(ctx, nodeID)
		}
		return nil, nodeID, false, err
	}
	switch end {
	case waitSwitching:
		// The run continues as new and waits at this node again; a reply
		// until then is carried (waiting_continue.go).
		held = true
		return nil, nodeID, false, errSwitching
	case waitInterrupted:
		return nil, nodeID, false, errInterrupted
	}
	if err := r.setPhase(ctx, signals.PhaseRunning); err != nil {
		return nil, nodeID, false, err
	}
	if end == waitTimedOut {
		r.finishNode(ctx, nodeID, nil, fmt.Sprintf("no reply within human_timeout (%s)", timeout))
		return nil, nodeID, true, nil
	}
	reply = r.human.takeReply()
	r.finishNode(ctx, nodeID, mustJSON(reply), "")
	if n := r.run.node(nodeID); n != nil {
		r.run.Settle(n) // a graph's human node writes State.human
	}
	r.run.Answered(nodeID)
	return reply, nodeID, false, nil
}

// replyWanted says whether a reply can land now: something waits, and no
// other reply has landed in the meantime (two in one workflow task would
// otherwise overwrite each other).
func (r *runner) replyWanted(req signals.ReplyRequest) error {
	if !r.human.waiting() {
		return fmt.Errorf("reply: nothing waits for a reply (the run is %s)", r.run.Phase)
	}
	if r.human.reply != nil {
		return fmt.Errorf("reply: %s already has a reply", r.human.node)
	}
	if r.personAgent {
		return r.personReplyProblem(req)
	}
	return nil
}

// acceptReply is where a valid reply lands, from the update or the signal.
func (r *runner) acceptReply(req signals.ReplyRequest) (signals.ReplyResult, error) {
	if err := r.replyWanted(req); err != nil {
		return signals.ReplyResult{}, err
	}
	copied := req
	r.human.reply = &copied
	return signals.ReplyResult{NodeID: r.human.node}, nil
}
