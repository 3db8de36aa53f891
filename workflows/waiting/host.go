package waiting

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/budget"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// Step is how the run keeps what a step leaves waiting for people. This
// package reads where people wait; the rest (the step's calls, the
// ladder's human rung it carries) only the run knows of, and the step is
// handed back to it for that.
type Step interface {
	// HumanNode is the human node the step waits at ("" none): a person
	// agent's, a graph's, the ladder's human rung's.
	HumanNode() string
	// TurnNode is the task node a conversation waits at for its next
	// message ("" none).
	TurnNode() string
}

// Host is what the waits ask of the run they belong to.
type Host[S Step] interface {
	// Gate says whether the run takes change g (workflow.GetVersion as
	// the run asks it, max version 1).
	Gate(ctx workflow.Context, g Gate) bool
	// Graph says whether the run walks a graph, whose waits are gated
	// apart from the free-form loop's.
	Graph() bool
	// Generation is the run's generation.
	Generation() int
	// Node is the trace node id (nil: none).
	Node(id string) *trace.Node
	// Budget is the run's budget, whose rung's wait is carried too.
	Budget() *budget.Budget
	// Streaming: a model reply still streams. TurnWaiting: a conversation
	// waits for its next message. CutsIn: a message cuts in the turn under
	// way.
	Streaming() bool
	TurnWaiting() bool
	CutsIn() bool
	// Parked are the nodes waiting out an outage (a tool's calls, a model
	// request), each with when the run began to wait it out: a call is
	// carried as a held one is, a request is asked again.
	Parked() map[string]time.Time
	// AnswerContinued answers an edit or a person's handoff that waits
	// for its answer: it was not carried out, as the run continues as new
	// into generation.
	AnswerContinued(ctx workflow.Context, generation int)
	// TakeBufferedSignals handles the signals buffered in this workflow
	// task as the run handles any signal.
	TakeBufferedSignals(ctx workflow.Context)
	// Carried is what the run carried into this generation while it
	// waited (nil: nothing), and whether its human node is the ladder's
	// human rung's. DropResume drops where the run picks up, the waits it
	// carried with it.
	Carried() (*Carried, bool)
	DropResume()
	// ContinueAsNew continues the run as new carrying c, with what only
	// the run knows of step s (the model request whose calls the next
	// generation resumes, the ladder's human rung).
	ContinueAsNew(ctx workflow.Context, s S, c Carried) error
	// ReleaseCalls settles the calls of step s a switch held, as without
	// the switch: a call held for approval did not run because of what
	// stopped the switch, a call waiting on one never ran.
	ReleaseCalls(ctx workflow.Context, s S)
}

// People are the run's waits for a person's decision on a call and for a
// person's reply at a human node, as the waits carry them and put them
// back.
type People interface {
	// Waiting: a call waits for approval, or a human node for a reply.
	Waiting() bool
	// Approvals are the calls waiting for approval, in order; Decision is
	// one accepted for call id and not taken yet (nil: none).
	Approvals() []string
	Decision(id string) *signals.ApproveRequest
	// WaitApproval has call id wait for approval of tool again; Decide
	// lands a decision accepted before.
	WaitApproval(id, tool string)
	Decide(id string, d *signals.ApproveRequest)
	// Escalations are how many groups call id's approval asked before
	// the one it waits for; KeepEscalations puts back a count carried.
	Escalations(id string) int
	KeepEscalations(id string, n int)
	// Approved are approvals of call id accepted short of its approvers:
	// N; KeepApproved lands those accepted before.
	Approved(id string) []*signals.ApproveRequest
	KeepApproved(id string, approved []*signals.ApproveRequest)
	// HumanNode is the human node a reply would answer ("" none);
	// HumanRung whether it is the ladder's human rung's.
	HumanNode() string
	HumanRung() bool
	// Reply is a reply accepted and not taken yet (nil: none); KeepReply
	// lands one accepted before.
	Reply() *signals.ReplyRequest
	KeepReply(reply *signals.ReplyRequest)
	// WaitAgainAt has the run wait for a reply at human node again (the
	// ladder's human rung's: rung): the next wait for a reply waits there.
	// TakeHeld answers that node once ("" none).
	WaitAgainAt(node string, rung bool)
	TakeHeld() string
	// EndReply: no human node waits for a reply now.
	EndReply()
}

// Gate names the change that lets a run continue as new while it waits,
// one for each kind of wait and run shape; the run maps it to its change
// id.
type Gate int

const (
	// GateFreeForm: a free-form run waiting for people (calls held for
	// approval, a person agent's human node, a budget rung, a message).
	GateFreeForm Gate = iota
	// GateGraph: a graph run waiting for people.
	GateGraph
	// GateRung: the ladder's human rung waiting for a reply.
	GateRung
	// GateOutage: a run waiting out an outage (a tool's call, or its
	// models), and for nothing else.
	GateOutage
)
