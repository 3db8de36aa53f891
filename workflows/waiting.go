package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/budget"
	"github.com/unstuck-dev/unstuck/workflows/life"
	"github.com/unstuck-dev/unstuck/workflows/waiting"
)

// The run's waits for people as it carries them into its next generation,
// and the await an edit can interrupt, are package waiting's. This file
// wires it to the run: when each wait began is the runner's waits, what
// the run carries is its Resume's Waiting.

// waiting is the run's waits for people, over the run's state as it is
// now.
func (r *runner) waiting() *waiting.Waits[stepWaits] {
	return waiting.New[stepWaits](waitingRun{r}, waitingPeople{r}, &r.waits, &r.life)
}

// waitingResume is what a run that continued as new while waiting still
// waits for (package waiting), and the ladder's human rung's own wait.
type waitingResume struct {
	waiting.Carried
	// Rung: the human node is the ladder's human rung's (rung_human.go).
	Rung *carriedRung `json:"rung,omitempty"`
}

// errSwitching ends a wait the run carries into its next generation.
var errSwitching = errors.New("continuing as new while waiting")

// Where a step's people wait, as package waiting reads it.
func (w stepWaits) HumanNode() string { return w.human }
func (w stepWaits) TurnNode() string  { return w.turn }

// waitingGates are the change ids of the gates of continuing as new while
// waiting.
var waitingGates = map[waiting.Gate]string{
	waiting.GateFreeForm: versionWaitingContinue,
	waiting.GateGraph:    versionGraphWaits,
	waiting.GateRung:     versionRungWaits,
	waiting.GateOutage:   versionOutageContinue,
}

// waitingRun is what the waits ask of the run.
type waitingRun struct{ r *runner }

var _ waiting.Host[stepWaits] = waitingRun{}

func (h waitingRun) Gate(ctx workflow.Context, g waiting.Gate) bool {
	return versionOf(ctx, waitingGates[g], 1) >= 1
}

func (h waitingRun) Graph() bool                  { return h.r.shape.graph() }
func (h waitingRun) Generation() int              { return h.r.run.Generation }
func (h waitingRun) Node(id string) *Node         { return h.r.run.node(id) }
func (h waitingRun) Budget() *budget.Budget       { return h.r.budget() }
func (h waitingRun) Streaming() bool              { return h.r.streaming != nil && h.r.streaming.open }
func (h waitingRun) TurnWaiting() bool            { return h.r.run.Turn.Waiting != "" }
func (h waitingRun) CutsIn() bool                 { return h.r.chat().CutsIn() }
func (h waitingRun) Parked() map[string]time.Time { return h.r.parked.All() }
func (h waitingRun) DropResume()                  { h.r.run.Resume = nil }

func (h waitingRun) AnswerContinued(ctx workflow.Context, generation int) {
	h.r.person().AnswerContinued(ctx, generation)
}

// TakeBufferedSignals handles the signals buffered in this workflow task
// the way receiveSignals does.
func (h waitingRun) TakeBufferedSignals(ctx workflow.Context) {
	handlers := h.r.signalHandlers(ctx)
	eachBufferedSignal(ctx, func(name string, raw converter.RawValue) {
		payload, err := decodeSignal(name, raw)
		audit := auditOf(payload)
		if err == nil {
			audit, err = handlers[name](payload)
		}
		if err != nil {
			h.r.ignoredSignal(ctx, name, audit, err)
		}
	})
}

func (h waitingRun) Carried() (*waiting.Carried, bool) {
	res := h.r.run.Resume
	if res == nil || res.Waiting == nil {
		return nil, false
	}
	return &res.Waiting.Carried, res.Waiting.Rung != nil
}

// ContinueAsNew carries c with the model request whose calls the next
// generation resumes (s.reqID, "" for none) and, with its human node, the
// ladder's human rung's wait.
func (h waitingRun) ContinueAsNew(ctx workflow.Context, s stepWaits, c waiting.Carried) error {
	w := &waitingResume{Carried: c}
	if s.human != "" {
		w.Rung = s.rung
	}
	h.r.run.Resume = &editResume{Request: s.reqID, Waiting: w}
	return h.r.continueAsNew(ctx)
}

// ReleaseCalls settles a step's held calls: as without the switch, a call
// held for approval did not run because of what took the run, a call
// waiting on one never ran.
func (h waitingRun) ReleaseCalls(ctx workflow.Context, s stepWaits) {
	r := h.r
	for _, c := range s.calls {
		switch {
		case c.held:
			c.held = false
			c.errText, c.class = notRunText(r.life.Stops()), policies.Canceled
			r.person().EndApproval(c.nodeID)
			r.waits.Forget(c.nodeID)
			r.notRunNode(ctx, c.nodeID, r.life.Stops(), "")
		case !c.done:
			c.errText, c.class, c.done = neverRanText, policies.Structural, true
			r.parked.Unpark(c.nodeID) // a call carried from its outage wait waits no more
			r.notRunNode(ctx, c.nodeID, life.NeverRan, "")
		}
	}
}

// waitingPeople are the run's waits for a person's decision and reply
// (person/approval.go, person/reply.go), as the waits carry them.
type waitingPeople struct{ r *runner }

var _ waiting.People = waitingPeople{}

func (p waitingPeople) Waiting() bool       { return p.r.person().Waiting() }
func (p waitingPeople) Approvals() []string { return p.r.person().WaitingApprovals() }
func (p waitingPeople) Decision(id string) *signals.ApproveRequest {
	return p.r.person().Decision(id)
}
func (p waitingPeople) WaitApproval(id, tool string) { p.r.person().ExpectApproval(id, tool) }
func (p waitingPeople) Escalations(id string) int    { return p.r.person().Escalations(id) }
func (p waitingPeople) KeepEscalations(id string, n int) {
	p.r.person().KeepEscalations(id, n)
}
func (p waitingPeople) Decide(id string, d *signals.ApproveRequest) {
	p.r.person().KeepDecision(id, d)
}
func (p waitingPeople) Approved(id string) []*signals.ApproveRequest {
	return p.r.person().Approved(id)
}
func (p waitingPeople) KeepApproved(id string, approved []*signals.ApproveRequest) {
	p.r.person().KeepApproved(id, approved)
}
func (p waitingPeople) HumanNode() string                     { return p.r.person().ReplyNode() }
func (p waitingPeople) HumanRung() bool                       { return p.r.person().AtRung() }
func (p waitingPeople) Reply() *signals.ReplyRequest          { return p.r.person().Reply() }
func (p waitingPeople) KeepReply(reply *signals.ReplyRequest) { p.r.person().KeepReply(reply) }

// EndReply: the waits forget when the reply's wait began themselves.
func (p waitingPeople) EndReply() { p.r.person().ReleaseReply(p.r.person().ReplyNode()) }

func (p waitingPeople) WaitAgainAt(node string, rung bool) {
	p.r.person().ExpectReply(node, rung, p.r.run.Spec.Agent.Kind == config.KindHuman)
}

func (p waitingPeople) TakeHeld() string { return p.r.person().TakeHeld() }
