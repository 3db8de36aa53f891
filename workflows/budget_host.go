package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/budget"
	"github.com/unstuck-dev/unstuck/workflows/person"
)

// budget is the run's budget (workflows/budget): its spending, carried in
// the Run, and the rung's hold, kept by the runner. Made for each use, so
// it always asks the runner it is called on.
func (r *runner) budget() *budget.Budget {
	return budget.New(budgetHost{r}, &r.budgetHold, &r.run.Spending)
}

// budgetHost is what the budget asks of the run.
type budgetHost struct{ r *runner }

var _ budget.Host = budgetHost{}

// budgetGates are the change ids of the budget's gates.
var budgetGates = map[budget.Gate]string{
	budget.GateBudget:     versionBudget,
	budget.GateReplyBound: versionBudgetReplyBound,
	budget.GateWait:       versionBudgetWait,
}

func (h budgetHost) Gate(ctx workflow.Context, g budget.Gate) bool {
	return versionOf(ctx, budgetGates[g], 1) >= 1
}

func (h budgetHost) Count(ctx workflow.Context, name string, n int64, keyValues ...string) {
	h.r.count(ctx, name, n, keyValues...)
}

func (h budgetHost) Spec() *config.Resolved      { return h.r.run.Spec }
func (h budgetHost) ModelAt() int                { return h.r.run.ModelAt }
func (h budgetHost) Phase() signals.Phase        { return h.r.run.Phase }
func (h budgetHost) HumanTimeout() time.Duration { return humanTimeout(h.r.run.Spec) }

func (h budgetHost) NodeSpend(id string) *policies.Spend {
	n := h.r.run.node(id)
	if n == nil {
		return nil
	}
	if n.Spent == nil {
		n.Spent = &policies.Spend{}
	}
	return n.Spent
}

func (h budgetHost) AddNode(ctx workflow.Context, parent string, args any) string {
	return h.r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindBudget, Status: signals.StatusPending, Parents: []string{parent},
		Args: mustJSON(args),
	}, Step: h.r.run.Step}).ID
}

func (h budgetHost) FinishNode(ctx workflow.Context, id string, output any, errText string) {
	var raw []byte
	if output != nil {
		raw = mustJSON(output)
	}
	h.r.finishNode(ctx, id, raw, errText)
}

func (h budgetHost) Stop(ctx workflow.Context, reason string) error { return h.r.stop(ctx, reason) }

func (h budgetHost) SetPhase(ctx workflow.Context, phase signals.Phase) error {
	return h.r.setPhase(ctx, phase)
}

func (h budgetHost) ApprovalPhase(ctx workflow.Context) error { return h.r.person().ApprovalPhase(ctx) }

func (h budgetHost) Wait(ctx workflow.Context, w person.Wait) (person.End, error) {
	end, _, err := h.r.person().Wait(ctx, w)
	if err != nil {
		if cancelled(ctx, err) {
			return person.Answered, h.r.cancelled(ctx, w.Node)
		}
		return person.Answered, err
	}
	return end, nil
}

func (h budgetHost) InterruptedWhile() string { return h.r.waiting().InterruptedWhile() }
func (h budgetHost) Switching() bool          { return h.r.life.Switching() }
func (h budgetHost) Forget(node string)       { h.r.waits.Forget(node) }

func (h budgetHost) Paused(end person.End) error {
	if end == person.Switching {
		return errSwitching
	}
	return errInterrupted
}
