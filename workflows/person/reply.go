package person

import (
	"cmp"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
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
	// ask is who may reply and by when (reply_ask.go), level how many of
	// its groups were asked before the one asked now, why what the node
	// asks, due the wait's start and deadline (for status).
	ask       config.Approval
	level     int
	why       string
	graphNode string
	due       due
}

// clear: nothing waits for a reply any more.
func (r *replyWait) clear() {
	*r = replyWait{reply: r.reply, held: r.held}
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
// answered; byDeadline: the ask's deadline let the wait go on, then:
// approve).
type replied struct {
	reply      *signals.ReplyRequest
	node       string
	end        End
	byDeadline bool
}

// Replied is how a graph's human node or the ladder's human rung ended
// its wait: the reply, or none when TimedOut (no reply within its
// timeout) or ByDeadline (no reply, and its approval's then: approve lets
// the run go on); Node is the human node.
type Replied struct {
	Reply      *signals.ReplyRequest
	Node       string
	TimedOut   bool
	ByDeadline bool
}

// Ask is a wait for a reply: why it asks (the human node says so),
// whether it is the ladder's human rung, the graph's human node it is
// ("" none), and its approval block (who may reply and by when:
// reply_ask.go; zero: anyone, within human_timeout).
type Ask struct {
	Why       string
	Rung      bool
	GraphNode string
	Approval  config.Approval
}

// AwaitReply puts the run in phase awaiting_human until a reply arrives
// or the wait's timeout passes. The reply's text joins the conversation
// through the human node; a timeout tells the caller to move on (the
// escalation ladder climbs to its next rung). The run may continue as new
// while it waits (Paused(Switching)), the caller carrying the wait, or an
// edit may come first (Paused(Interrupted)).
func (p *Waits) AwaitReply(ctx workflow.Context, ask Ask) (Replied, error) {
	p.state.reply.ask, p.state.reply.graphNode = ask.Approval, ask.GraphNode
	got, err := p.awaitReply(ctx, ask.Why, ask.Rung)
	switch {
	case err != nil:
		return Replied{Node: got.node}, err
	case got.end == Switching || got.end == Interrupted:
		return Replied{Node: got.node}, p.host.Paused(got.end)
	}
	return Replied{Reply: got.reply, Node: got.node, TimedOut: got.end == TimedOut && !got.byDeadline, ByDeadline: got.byDeadline}, nil
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
	r.node, r.rung, r.why = nodeID, rung, why
	held := false
	defer func() {
		if !held {
			r.clear()
			h.Forget(nodeID)
		}
	}()
	if err := h.SetPhase(ctx, signals.PhaseAwaitingHuman); err != nil {
		return replied{node: nodeID}, err
	}
	end, timeout, err := p.waitReply(ctx, nodeID)
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
		return p.replyTimedOut(ctx, nodeID, timeout), nil
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

// waitReply waits at human node nodeID for a reply, asking the reply
// ask's groups in turn when its deadline escalates: each wait but the
// last that times out begins the next with a whole timeout.
func (p *Waits) waitReply(ctx workflow.Context, nodeID string) (End, time.Duration, error) {
	h, r := p.host, &p.state.reply
	w := Wait{
		Node: nodeID, Summary: "wait for a person's reply (" + nodeID + ")",
		Answered: func() bool { return r.reply != nil },
		Edits:    true, Switches: true, Notify: true,
	}
	d := p.replyDeadline(ctx)
	shown := (r.ask.Named() || d.Bounded()) && p.host.Gate(ctx, GateHumanPeople)
	if d.Bounded() {
		w.Timeout, w.PastHalf = d.Timeout.D(), func(ctx workflow.Context) {
			h.Count(ctx, MetricApprovalsPastHalf, 1, "tool", replyMetric)
			h.ShowDetails(ctx)
		}
	}
	for {
		since := h.Started(ctx, nodeID)
		r.due = due{since, since.Add(cmp.Or(w.Timeout, h.HumanTimeout()))}
		if shown {
			h.ShowDetails(ctx) // the inbox lists the wait, with its deadline
		}
		end, timeout, err := p.Wait(ctx, w)
		if err != nil || end != TimedOut || !policies.Escalates(d.Decides(), r.level, r.ask.Levels()) {
			return end, timeout, err
		}
		// The next group is asked, with a whole timeout of its own.
		r.level++
		h.Forget(nodeID)
		h.Count(ctx, MetricApprovalsEscalated, 1, "tool", replyMetric)
	}
}

// replyDeadline is the reply ask's own deadline when it has one and the
// run takes the change, else none (human_timeout, then no reply).
func (p *Waits) replyDeadline(ctx workflow.Context) config.Deadline {
	if d := p.state.reply.ask.Deadline; d.Bounded() && p.host.Gate(ctx, GateHumanPeople) {
		return d
	}
	return config.Deadline{}
}

// replyTimedOut settles human node nodeID, whose wait of timeout passed
// with no reply: then: approve lets the run go on (byDeadline), anything
// else is no reply.
func (p *Waits) replyTimedOut(ctx workflow.Context, nodeID string, timeout time.Duration) replied {
	d := p.replyDeadline(ctx)
	if d.Bounded() && d.Decides() == config.ThenApprove {
		p.host.FinishNode(ctx, nodeID, map[string]any{"by_deadline": true, "decision": config.ThenApprove, "timeout": timeout.String()}, "")
		return replied{node: nodeID, end: TimedOut, byDeadline: true}
	}
	within := "human_timeout"
	if d.Bounded() {
		within = "its approval's timeout"
	}
	p.host.FinishNode(ctx, nodeID, nil, fmt.Sprintf("no reply within %s (%s)", within, timeout))
	return replied{node: nodeID, end: TimedOut}
}

// ReplyWanted says whether a reply can land now: something waits, and no
// other reply has landed in the meantime (two in one workflow task would
// otherwise overwrite each other).
func (p *Waits) ReplyWanted(ctx workflow.Context, req signals.ReplyRequest) error {
	r := &p.state.reply
	if !r.waiting() {
		return fmt.Errorf("reply: nothing waits for a reply (the run is %s)", p.host.Phase())
	}
	if r.reply != nil {
		return fmt.Errorf("reply: %s already has a reply", r.node)
	}
	if r.ask.Named() {
		if err := p.checkSignedReply(ctx, req); err != nil {
			return err
		}
	}
	if p.state.agent {
		return p.agentReplyProblem(req)
	}
	return nil
}

// AcceptReply is where a valid reply lands, from the update or the
// signal.
func (p *Waits) AcceptReply(ctx workflow.Context, req signals.ReplyRequest) (signals.ReplyResult, error) {
	if err := p.ReplyWanted(ctx, req); err != nil {
		return signals.ReplyResult{}, err
	}
	copied := req
	p.state.reply.reply = &copied
	return signals.ReplyResult{NodeID: p.state.reply.node}, nil
}
