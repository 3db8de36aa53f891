package workflows

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/budget"
	"github.com/unstuck-dev/unstuck/workflows/edit"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// A run waiting for a person keeps every signal it receives in its
// history, ignored ones included; waiting for the next step to continue
// as new lets a flood of signals reach the server's history limit, where
// the run is terminated. So a run that waits only for people continues
// as new when Temporal suggests it (policies.ContinueWhileWaiting), and
// the next generation waits for the same things: the same call nodes for
// approval (same call ids, same deadline), a person agent's same human
// node, with the decisions and the reply already accepted.
//
// The switch works like an edit's interruption: no call of the step
// starts, calls already running are waited for, the waiting calls are
// held (their nodes stay awaiting_approval, the calls waiting on them
// pending), and the next generation resumes the step's calls
// (editResume.Waiting): settled ones are kept, held ones walk the
// pipeline again under their own node.

// waitingResume is what a run that continued as new while waiting still
// waits for.
type waitingResume struct {
	// Since is when each call (by node id) began to wait for approval, or
	// the human node for a reply: the deadline is kept.
	Since map[string]time.Time `json:"since,omitempty"`
	// Decisions are approvals accepted and not taken yet, by call node.
	Decisions map[string]*signals.ApproveRequest `json:"decisions,omitempty"`
	// Human is the human node a person agent waits at; Reply a reply to
	// it accepted and not taken yet.
	Human string                `json:"human,omitempty"`
	Reply *signals.ReplyRequest `json:"reply,omitempty"`
	// Budget is the budget rung the run waits at (its node and crossing,
	// and a decision accepted and not taken yet).
	Budget *budget.Carried `json:"budget,omitempty"`
	// Rung: the human node is the ladder's human rung's (rung_human.go).
	Rung *carriedRung `json:"rung,omitempty"`
}

// errSwitching ends a wait the run carries into its next generation.
var errSwitching = errors.New("continuing as new while waiting")

// watchWaiting, for the life of a generation, waits until the run should
// continue as new while waiting, then begins the switch: the waits end held
// and the step carries them over (continueWaiting). The version of the
// kind of wait is asked only then, so runs that never get there record no
// marker; a kind a run recorded before (which went on waiting) leaves
// the watch to the other kinds.
func (r *runner) watchWaiting(ctx workflow.Context) {
	before := map[string]bool{}
	for {
		if err := workflow.Await(ctx, func() bool {
			return policies.ContinueWhileWaiting(r.waitView(ctx)) && !before[r.waitingChange()]
		}); err != nil {
			return
		}
		change := r.waitingChange()
		if versionOf(ctx, change, 1) >= 1 {
			live(r.life.BeginSwitch())
			return
		}
		before[change] = true // as runs recorded before: the wait goes on
	}
}

// waitingChange is the change id that gates continuing as new while
// waiting, by the kind of wait and the run's shape: each asks one id, so
// which marker a run records depends on nothing else.
func (r *runner) waitingChange() string {
	switch {
	case r.human.rung:
		return versionRungWaits
	case r.run.Spec.Agent.Graph != nil:
		return versionGraphWaits
	}
	return versionWaitingContinue
}

// waitView is what policies.ContinueWhileWaiting reads.
func (r *runner) waitView(ctx workflow.Context) policies.WaitView {
	return policies.WaitView{
		ContinueAsNewSuggested: workflow.GetInfo(ctx).GetContinueAsNewSuggested(),
		Waiting:                r.approvals.waiting() || r.human.waiting() || r.budget().Carries() || r.run.Turn.Waiting != "",
		Streaming:              r.streaming != nil && r.streaming.open,
		Interrupting:           r.life.Interrupting(),
		Closing:                r.life.Closing() || r.life.HandingOver() != "",
	}
}

// continueWaiting continues the run as new, carrying what it waits for:
// the calls of a step's request held for approval (w.reqID "" for none; a
// graph tool node's call), a human node (a person agent's, a graph's, the
// ladder's human rung's) or a budget rung.
func (r *runner) continueWaiting(ctx workflow.Context, sw stepWaits) error {
	reqID, human := sw.reqID, sw.human
	live(r.life.Close())
	r.answerPending(ctx, fmt.Sprintf("the run continued as new into generation %d", r.run.Generation+1), "send it again to the run that follows")
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	// Signals that reached the run in this task are taken as they would
	// have been a moment earlier (an approval among them is carried),
	// not ignored as arriving between generations.
	r.takeBufferedSignals(ctx)
	w := &waitingResume{Since: map[string]time.Time{}, Decisions: map[string]*signals.ApproveRequest{}, Human: human}
	for _, id := range r.approvals.ids() {
		w.Since[id] = r.waits.since(id)
		if d := r.approvals.decision(id); d != nil {
			w.Decisions[id] = d
		}
	}
	if human != "" {
		w.Since[human] = r.waits.since(human)
		w.Reply = r.human.reply
		w.Rung = sw.rung
	}
	if sw.turn != "" {
		w.Since[sw.turn] = r.waits.since(sw.turn)
	}
	if b := r.budget().Carried(); b != nil {
		w.Since[b.Node] = r.waits.since(b.Node)
		w.Budget = b
	}
	r.run.Resume = &editResume{Request: reqID, Waiting: w}
	workflow.GetLogger(ctx).Info("continuing as new while waiting", "waiting", len(w.Since), "generation", r.run.Generation+1)
	return r.continueAsNew(ctx)
}

// takeBufferedSignals handles the signals buffered in this workflow task
// the way receiveSignals does.
func (r *runner) takeBufferedSignals(ctx workflow.Context) {
	handlers := r.signalHandlers(ctx)
	eachBufferedSignal(ctx, func(name string, raw converter.RawValue) {
		payload, err := decodeSignal(name, raw)
		audit := auditOf(payload)
		if err == nil {
			audit, err = handlers[name](payload)
		}
		if err != nil {
			r.ignoredSignal(ctx, name, audit, err)
		}
	})
}

// expectCarriedWaits, as a generation that continued while waiting
// starts (before its first message is taken), puts back what it waits
// for: the calls waiting for approval or the human node, each wait's
// start, and the decisions and reply already accepted. An approval or a
// reply that reached the run between generations lands as it would have
// in the one before, instead of being refused as waited for by nothing.
func (r *runner) expectCarriedWaits() {
	res := r.run.Resume
	if res == nil || res.Waiting == nil {
		return
	}
	w := res.Waiting
	for _, id := range sortedIDs(w.Since) {
		if n := r.run.node(id); n != nil && n.Kind == signals.KindCall && n.Status == signals.StatusAwaitingApproval {
			r.approvals.wait(id, n.AskedTool())
		}
	}
	if w.Human != "" {
		r.human.node, r.human.rung = w.Human, w.Rung != nil
		r.human.held = w.Human // the next wait for a reply waits there again
		r.personAgent = r.run.Spec.Agent.Kind == config.KindHuman
	}
	// Copying into maps: the order does not matter.
	//workflowcheck:ignore
	for id, since := range w.Since {
		r.waits.keep(id, since)
	}
	//workflowcheck:ignore
	for id, d := range w.Decisions {
		r.approvals.decide(id, d)
	}
	if w.Reply != nil {
		r.human.reply = w.Reply
	}
	if b := w.Budget; b != nil {
		if n := r.run.node(b.Node); n != nil && n.Kind == signals.KindBudget && n.Status == signals.StatusPending {
			r.budget().TakeCarried(b)
		}
	}
}

// heldCall is a call of a resumed step that was held for approval, or
// waited on such a call, when the run continued as new: it walks the
// pipeline again under its own node (so its call id stays the one people
// were shown). A call held for approval goes with the arguments it waited
// with (references resolved, repaired), keeping the State path it writes.
func (r *runner) heldCall(ctx workflow.Context, reqID string, tc activities.ToolCall, resume *editResume) *stepCall {
	if resume == nil || resume.Waiting == nil {
		return nil
	}
	n := edit.ValidCall(&r.run.Trace, reqID, tc.ID)
	if n == nil || (n.Status != signals.StatusAwaitingApproval && n.Status != signals.StatusPending) {
		return nil
	}
	if n.Status == signals.StatusAwaitingApproval && len(n.Args) > 0 {
		tc.Args = argsKeepingOutputPath(n.Args, tc.Args)
	}
	return r.prepareCall(ctx, n.ID, tc)
}

// heldCalls says whether a step has calls held for the next generation.
func heldCalls(calls []*stepCall) bool {
	for _, c := range calls {
		if c.held || !c.done {
			return true
		}
	}
	return false
}

// takeHeldHuman, as a person agent's generation starts, takes the wait it
// continued as new in, if it did (its node: expectCarriedWaits).
func (r *runner) takeHeldHuman() {
	if res := r.run.Resume; res != nil && res.Waiting != nil {
		r.run.Resume = nil
	}
}

// heldHumanNode is the human node carried over, still waiting, once.
func (r *runner) heldHumanNode() *Node {
	id := r.human.held
	r.human.held = ""
	if id == "" {
		return nil
	}
	if n := r.run.node(id); n != nil && n.Kind == signals.KindHuman && n.Status == signals.StatusPending {
		return n
	}
	return nil
}

// sortedIDs are a map's keys in order, for code whose commands or carried
// state must not depend on the map's order.
func sortedIDs[V any](m map[string]V) []string {
	ids := make([]string, 0, len(m))
	// Collecting keys, sorted below.
	//workflowcheck:ignore
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// releaseHeld settles the waits a switch held when an edit or a person's
// handoff (or a cancellation) takes the run instead: as without the
// switch, a call held for approval did not run because of it, a call
// waiting on one never ran, and a human node is no longer waited at. No
// call stays listed as awaiting approval in a run that no longer waits
// for it.
func (r *runner) releaseHeld(ctx workflow.Context, w stepWaits) {
	if !r.life.Switching() {
		return
	}
	live(r.life.EndSwitch())
	r.budget().Drop(ctx, "not decided: "+r.interruptedWhile())
	if w.human != "" && r.human.node == w.human {
		r.human.node, r.human.rung = "", false
		r.waits.forget(w.human)
	}
	for _, c := range w.calls {
		switch {
		case c.held:
			c.held = false
			c.errText, c.class = notRunText(r.life.Stops()), policies.Canceled
			r.approvals.end(c.nodeID)
			r.waits.forget(c.nodeID)
			r.notRunNode(ctx, c.nodeID, r.life.Stops(), "")
		case !c.done:
			c.errText, c.class, c.done = neverRanText, policies.Structural, true
			r.notRunNode(ctx, c.nodeID, life.NeverRan, "")
		}
	}
}
