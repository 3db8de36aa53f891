package budget

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/person"
)

// Host is what the budget asks of the run it keeps.
type Host interface {
	// Gate says whether the run takes change g (workflow.GetVersion as the
	// run asks it, max version 1).
	Gate(ctx workflow.Context, g Gate) bool
	// Count adds n to the run's counter name, tagged by key-value pairs.
	Count(ctx workflow.Context, name string, n int64, keyValues ...string)
	// Spec is what the run decides on now (its agent changes at a
	// handoff); ModelAt is the place of the model it asks in Spec.Model.
	Spec() *config.Resolved
	ModelAt() int
	// Phase is the run's phase now.
	Phase() signals.Phase
	// HumanTimeout is how long the run waits for a person.
	HumanTimeout() time.Duration
	// NodeSpend is node id's spend, made on first use (nil: no such node).
	NodeSpend(id string) *policies.Spend
	// AddNode records a pending budget node after parent, with args, and
	// answers its id.
	AddNode(ctx workflow.Context, parent string, args any) string
	// FinishNode settles node id with output (nil: none) or errText.
	FinishNode(ctx workflow.Context, id string, output any, errText string)
	// Stop stops the run with the report, and answers its error.
	Stop(ctx workflow.Context, reason string) error
	// SetPhase shows phase; ApprovalPhase shows awaiting_approval while
	// calls of the step wait for a person, else running.
	SetPhase(ctx workflow.Context, phase signals.Phase) error
	ApprovalPhase(ctx workflow.Context) error
	// Wait waits for a person at w.Node, the one way the run waits for a
	// person (package person). A cancellation answers the run's cancelled
	// error, the node settled.
	Wait(ctx workflow.Context, w person.Wait) (person.End, error)
	// InterruptedWhile says what ended a wait for a person early.
	InterruptedWhile() string
	// Switching says whether the run is continuing as new while it waits.
	Switching() bool
	// Forget forgets when the wait at node began: nothing waits there now.
	Forget(node string)
	// Paused is the error that ends a request or call whose wait ended by
	// end (person.Interrupted, person.Switching) without stopping the run.
	Paused(end person.End) error
}

// Gate names a change of the budget's behaviour that running workflows
// must not see mid-run; the run maps it to its change id.
type Gate int

const (
	// GateBudget: the run keeps its agent's budget at all.
	GateBudget Gate = iota
	// GateReplyBound: a request is sent with the reply bound the budget
	// has left.
	GateReplyBound
	// GateWait: an edit ends a budget wait, a raise must raise the crossed
	// limit, and a request's wait may continue as new.
	GateWait
)
