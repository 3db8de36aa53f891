package budget

import (
	"time"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// Budget is a run's budget: its spending and its rung's hold, and the run
// it asks what it needs. It is a view made for each use: the state lives
// where its pointers lead (the run's Spending, the runner's Hold), so a
// copy of the runner never leaves a Budget behind.
type Budget struct {
	host  Host
	hold  *Hold
	spent *Spending
}

// New is the budget of a run: its host, the rung's hold and the run's
// spending (carried in the run's JSON).
func New(host Host, hold *Hold, spent *Spending) *Budget {
	return &Budget{host: host, hold: hold, spent: spent}
}

// Spending is what the run spent and what people raised its budget by,
// carried with the run (embedded in its JSON).
type Spending struct {
	Spend   *policies.Spend            `json:"spend,omitempty"`
	SpendBy map[string]*policies.Spend `json:"spend_by,omitempty"`
	Raised  policies.Limits            `json:"raised,omitzero"`
	// BornAt is when the run's first generation started: its wall time
	// counts from there.
	BornAt time.Time `json:"born_at,omitzero"`
}

// Add counts spend s of agent in the run's spend and the agent's share.
func (s *Spending) Add(agent string, spent policies.Spend) {
	all, by := s.of(agent)
	all.Add(spent)
	by.Add(spent)
}

// NewAgent starts the budget of an agent the run was handed to: a person
// raised the budget of the agent before, the next agent's is its own (the
// spend goes on).
func (s *Spending) NewAgent() { s.Raised = policies.Limits{} }

// of is the run's spend, created on first use, and agent's share of it.
func (s *Spending) of(agent string) (*policies.Spend, *policies.Spend) {
	if s.Spend == nil {
		s.Spend = &policies.Spend{}
	}
	if s.SpendBy == nil {
		s.SpendBy = map[string]*policies.Spend{}
	}
	if s.SpendBy[agent] == nil {
		s.SpendBy[agent] = &policies.Spend{}
	}
	return s.Spend, s.SpendBy[agent]
}

// Hold is the budget rung's hold on the run: its wait for a person's
// decision (nil when none), and, once a rung stopped the run, the stop,
// which keeps any other request or call of the run from going on. It
// lives one generation; a request's wait is carried (Carried).
type Hold struct {
	wait *wait
	stop error
}

// wait is a budget rung waiting for a person's decision.
type wait struct {
	nodeID   string
	cross    policies.Crossing
	decision *signals.BudgetRequest
	// waits: version budget-wait (an edit ends the wait, a raise must
	// raise the crossed limit). carried: the wait may continue as new with
	// the run, which only a request's may (a call's would carry the step's
	// decided approvals, which are not kept). held: it did, and waits
	// again once the run crosses the same limit.
	waits, carried, held bool
}

// Carried is a budget rung's wait carried into the next generation (in
// the continue-as-new input).
type Carried struct {
	Node     string                 `json:"node"`
	Cross    policies.Crossing      `json:"crossing"`
	Decision *signals.BudgetRequest `json:"decision,omitempty"`
}

// Stopped is the rung's stop, nil while the run may go on.
func (b *Budget) Stopped() error { return b.hold.stop }

// Carries says whether the rung waits in a wait the run may carry into
// its next generation (a request's).
func (b *Budget) Carries() bool { return b.hold.wait != nil && b.hold.wait.carried }

// Carried is the wait as the next generation takes it (nil when none).
func (b *Budget) Carried() *Carried {
	if w := b.hold.wait; w != nil {
		return &Carried{Node: w.nodeID, Cross: w.cross, Decision: w.decision}
	}
	return nil
}

// TakeCarried puts back a wait carried from the generation before.
func (b *Budget) TakeCarried(c *Carried) {
	b.hold.wait = &wait{nodeID: c.Node, cross: c.Cross, decision: c.Decision, waits: true, carried: true, held: true}
}

// Waiting is the node of the budget rung waiting for a decision ("" when
// none waits, or its decision came).
func (b *Budget) Waiting() string {
	if w := b.hold.wait; w != nil && w.decision == nil {
		return w.nodeID
	}
	return ""
}
