package person

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// replyWait is the run's wait for a person's reply: the human node a
// reply would answer ("" when none), whether it is the ladder's human
// rung, the reply that landed and is not taken yet, and the node a
// generation that continued as new while waiting waits at again.
type replyWait struct {
	node  string
	rung  bool
	reply *signals.ReplyRequest
	held  string
}

// waiting says whether the run waits for a reply.
func (r *replyWait) waiting() bool { return r.node != "" }

// take answers the reply that landed, once.
func (r *replyWait) take() *signals.ReplyRequest {
	reply := r.reply
	r.reply = nil
	return reply
}

// replied is how a wait for a reply at node ended (the reply when
// answered).
type replied struct {
	reply *signals.ReplyRequest
	node  string
	end   End
}

// AwaitReply puts the run in phase awaiting_human until a reply arrives
// or the agent's human_timeout passes. The reply's text joins the
// conversation through the human node; timedOut tells the caller to move
// on (the escalation ladder climbs to its next rung). The run may
// continue as new while it waits (Paused(Switching)), the caller carrying
// the wait, or an edit may come first (Paused(Interrupted)); rung: it is
// the ladder's human rung.
func (p *Waits) AwaitReply(ctx workflow.Context, why string, rung bool) (reply *signals.ReplyRequest, nodeID string, timedOut bool, err error) {
	got, err := p.awaitReply(ctx, why, rung)
	switch {
	case err != nil:
		return nil, got.node, false, err
	case got.end == Switching || got.end == Interrupted:
		return nil, got.node, false, p.host.Paused(got.end)
	}
	return got.reply, got.node, got.end == TimedOut, nil
}

// awaitReply waits for a reply at a new human node (why says why), or at
// the one a generation before continued as new while waiting at.
func (p *Waits) awaitReply(ctx workflow.Context, why string, rung bool) (replied, error) {
	h, r := p.host, &p.state.reply
	nodeID := h.HeldHuman()
	if nodeID == "" {
		nodeID = h.AddNode(ctx, signals.Node{
			Kind: signals.KindHuman, Status: signals.StatusPending, Parents: h.Trace().Frontier,
		}, map[string]string{"why": why}, nil)
		h.Checkpoint(nodeID)
	}
	r.node, r.rung = nodeID, rung
	held := false
	defer func() {
		if !held {
			r.node, r.rung = "", false
			h.Forget(nodeID)
		}
	}()
	if err := h.SetPhase(ctx, signals.PhaseAwaitingHuman); err != nil {
		return replied{node: nodeID}, err
	}
	end, timeout, err := p.Wait(ctx, Wait{
		Node: nodeID, Summary: "wait for a person's reply (" + nodeID + ")",
		Answered: func() bool { return r.reply != nil },
		Edits:    true, Switches: true, Notify: true,
	})
	if err != nil {
		return replied{node: nodeID}, h.Cancelled(ctx, nodeID, err)
	}
	switch end {
	case Switching:
		// The run continues as new and waits at this node again; a reply
		// until then is carried.
		held = true
		return replied{node: nodeID, end: end}, nil
	case Interrupted:
		return replied{node: nodeID, end: end}, nil
	}
	if err := h.SetPhase(ctx, signals.PhaseRunning); err != nil {
		return replied{node: nodeID}, err
	}
	if end == TimedOut {
		h.FinishNode(ctx, nodeID, nil, fmt.Sprintf("no reply within human_timeout (%s)", timeout))
		return replied{node: nodeID, end: end}, nil
	}
	reply := r.take()
	h.FinishNode(ctx, nodeID, reply, "")
	t := h.Trace()
	if n := t.Node(nodeID); n != nil {
		t.Settle(n) // a graph's human node writes State.human
	}
	t.Answered(nodeID)
	return replied{reply: reply, node: nodeID, end: Answered}, nil
}

// ReplyWanted says whether a reply can land now: something waits, and no
// other reply has landed in the meantime (two in one workflow task would
// otherwise overwrite each other).
func (p *Waits) ReplyWanted(req signals.ReplyRequest) error {
	r := &p.state.reply
	if !r.waiting() {
		return fmt.Errorf("reply: nothing waits for a reply (the run is %s)", p.host.Phase())
	}
	if r.reply != nil {
		return fmt.Errorf("reply: %s already has a reply", r.node)
	}
	if p.state.agent {
		return p.agentReplyProblem(req)
	}
	return nil
}

// AcceptReply is where a valid reply lands, from the update or the
// signal.
func (p *Waits) AcceptReply(req signals.ReplyRequest) (signals.ReplyResult, error) {
	if err := p.ReplyWanted(req); err != nil {
		return signals.ReplyResult{}, err
	}
	copied := req
	p.state.reply.reply = &copied
	return signals.ReplyResult{NodeID: p.state.reply.node}, nil
}
