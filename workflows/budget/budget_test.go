package budget

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testutil"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/person"
)

// fakeRun is a run as the budget sees it, recording what the budget asks
// of it (the part alone; the run's own tests are in workflows/).
type fakeRun struct {
	spec     *config.Resolved
	nodes    map[string]*policies.Spend
	added    []string
	finished map[string]string // node: errText, or "decided"
	stops    []string
	phases   []signals.Phase
	counts   map[string]int64
	end      person.End
	onWait   func() // a person answers while the budget waits
	switched bool
}

var (
	errPausedEdit   = errors.New("interrupted by an edit")
	errPausedSwitch = errors.New("continuing as new while waiting")
)

func newFakeRun(b config.Budget, ladder ...string) *fakeRun {
	spec := &config.Resolved{Agent: config.Agent{Name: "a"}, Pricing: &config.Pricing{Currency: "USD", Tools: map[string]int64{"t": 5}}}
	spec.Agent.Policies.Budget = &b
	spec.Agent.Policies.Escalation = ladder
	return &fakeRun{spec: spec, nodes: map[string]*policies.Spend{"n1": nil}, finished: map[string]string{}, counts: map[string]int64{}}
}

func (f *fakeRun) Gate(workflow.Context, Gate) bool { return true }
func (f *fakeRun) Count(_ workflow.Context, name string, n int64, _ ...string) {
	f.counts[name] += n
}
func (f *fakeRun) Spec() *config.Resolved      { return f.spec }
func (f *fakeRun) ModelAt() int                { return 0 }
func (f *fakeRun) Phase() signals.Phase        { return signals.PhaseRunning }
func (f *fakeRun) HumanTimeout() time.Duration { return time.Hour }
func (f *fakeRun) NodeSpend(id string) *policies.Spend {
	s, ok := f.nodes[id]
	if !ok {
		return nil
	}
	if s == nil {
		s = &policies.Spend{}
		f.nodes[id] = s
	}
	return s
}
func (f *fakeRun) AddNode(_ workflow.Context, parent string, _ any) string {
	id := "budget" + parent
	f.added = append(f.added, id)
	return id
}
func (f *fakeRun) FinishNode(_ workflow.Context, id string, output any, errText string) {
	if output != nil {
		errText = "decided"
	}
	f.finished[id] = errText
}
func (f *fakeRun) Stop(_ workflow.Context, reason string) error {
	f.stops = append(f.stops, reason)
	return errors.New("stopped: " + reason)
}
func (f *fakeRun) SetPhase(_ workflow.Context, p signals.Phase) error {
	f.phases = append(f.phases, p)
	return nil
}
func (f *fakeRun) ApprovalPhase(ctx workflow.Context) error {
	return f.SetPhase(ctx, signals.PhaseRunning)
}
func (f *fakeRun) Wait(workflow.Context, person.Wait) (person.End, error) {
	if f.onWait != nil {
		f.onWait()
	}
	return f.end, nil
}
func (f *fakeRun) InterruptedWhile() string { return "a person edited the run while it waited" }
func (f *fakeRun) Switching() bool          { return f.switched }
func (f *fakeRun) Forget(string)            {}
func (f *fakeRun) Paused(end person.End) error {
	if end == person.Switching {
		return errPausedSwitch
	}
	return errPausedEdit
}

func calls(n int64) *int64 { return &n }

// A spend is kept in three places: the run's, its agent's share and the
// node that spent it, at the run's prices, and counted in the metrics.
func TestASpendIsCountedOnTheRunItsAgentAndItsNode(t *testing.T) {
	f := newFakeRun(config.Budget{})
	var spent Spending
	b := New(f, &Hold{}, &spent)
	b.SpendCall(nil, "n1", "t")
	b.SpendCall(nil, "gone", "t") // a node no longer in the trace: the run's spend only
	require.Equal(t, int64(2), spent.Spend.ToolCalls)
	require.Equal(t, int64(10), spent.Spend.CostPicos)
	require.Equal(t, int64(2), spent.SpendBy["a"].ToolCallsBy["t"])
	require.Equal(t, int64(1), f.nodes["n1"].ToolCalls)
	require.Equal(t, int64(2), f.counts[MetricSpendToolCalls])
}

// A call that would cross the budget, without a human rung in the ladder,
// stops the run at a budget node; the stop is kept, so no later call goes.
func TestACallOverTheBudgetWithoutAHumanRungStops(t *testing.T) {
	f := newFakeRun(config.Budget{ToolCalls: calls(1)})
	hold := &Hold{}
	spent := Spending{Spend: &policies.Spend{ToolCalls: 1}}
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		b := New(f, hold, &spent)
		err := b.BeforeCall(ctx, "n1", "t")
		assert.ErrorContains(t, err, "budget: ")
		assert.Equal(t, err, b.Stopped())
		assert.Equal(t, err, b.BeforeCall(ctx, "n1", "t"))
	})
	require.Equal(t, []string{"budgetn1"}, f.added)
	require.Len(t, f.stops, 1)
	require.Contains(t, f.finished["budgetn1"], "no human rung")
	require.Equal(t, int64(1), f.counts[MetricBudgetRungs])
}

// A person's raise at the budget rung lets the call go, and counts as the
// run's raise.
func TestARaiseAtTheRungLetsTheCallGo(t *testing.T) {
	f := newFakeRun(config.Budget{ToolCalls: calls(1)}, config.RungHuman)
	hold := &Hold{}
	spent := Spending{Spend: &policies.Spend{ToolCalls: 1}}
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		b := New(f, hold, &spent)
		f.onWait = func() {
			assert.Equal(t, "budgetn1", b.Waiting())
			_, err := b.Accept(signals.BudgetRequest{Raise: &signals.BudgetRaise{ToolCalls: 2}})
			assert.NoError(t, err)
		}
		assert.NoError(t, b.BeforeCall(ctx, "n1", "t"))
		assert.Nil(t, b.Stopped())
		assert.Empty(t, b.Waiting())
	})
	require.Equal(t, int64(2), spent.Raised.ToolCalls)
	require.Equal(t, "decided", f.finished["budgetn1"])
	require.Equal(t, []signals.Phase{signals.PhaseAwaitingHuman, signals.PhaseRunning}, f.phases)
}

// An edit that ends the wait is not a stop: the call does not go, and a
// later one asks again.
func TestAnEditAtTheRungIsNotAStop(t *testing.T) {
	f := newFakeRun(config.Budget{ToolCalls: calls(1)}, config.RungHuman)
	f.end = person.Interrupted
	hold := &Hold{}
	spent := Spending{Spend: &policies.Spend{ToolCalls: 1}}
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		b := New(f, hold, &spent)
		assert.ErrorIs(t, b.BeforeCall(ctx, "n1", "t"), errPausedEdit)
		assert.Nil(t, b.Stopped())
	})
	require.Contains(t, f.finished["budgetn1"], "not decided: a person edited")
	require.Empty(t, f.stops)
}

// A decision lands only on a rung that waits for one, and a raise must
// name limits the budget has and raise the one crossed.
func TestABudgetDecisionIsRefusedUnlessARungWantsIt(t *testing.T) {
	f := newFakeRun(config.Budget{ToolCalls: calls(1), InputTokens: calls(10)})
	raise := func(r signals.BudgetRaise) signals.BudgetRequest { return signals.BudgetRequest{Raise: &r} }
	b := New(f, &Hold{}, &Spending{})
	require.ErrorContains(t, b.Wanted(raise(signals.BudgetRaise{ToolCalls: 1})), "no budget rung waits")
	b.TakeCarried(&Carried{Node: "n7", Cross: policies.Crossing{Limit: policies.LimitToolCalls}})
	require.ErrorContains(t, b.Wanted(raise(signals.BudgetRaise{ModelRequests: 1})), "raise.model_requests")
	require.ErrorContains(t, b.Wanted(raise(signals.BudgetRaise{InputTokens: 5})), "a raise must raise tool_calls")
	f.spec.Agent.Policies.Budget.ToolCallsPerTool = map[string]int64{"b": 1}
	perTool := map[string]int64{"d": 1, "b": 1, "c": 1, "a": 0}
	for range 5 { // the map's order changes nothing
		require.ErrorContains(t, b.Wanted(raise(signals.BudgetRaise{ToolCalls: 1, ToolCallsPerTool: perTool})), "raise.tool_calls_per_tool.a:")
	}
	res, err := b.Accept(raise(signals.BudgetRaise{ToolCalls: 1}))
	require.NoError(t, err)
	require.Equal(t, "n7", res.NodeID)
	require.ErrorContains(t, b.Wanted(signals.BudgetRequest{Stop: true}), "n7 already has a decision")
	require.Equal(t, "n7", b.Carried().Node)
	require.NotNil(t, b.Carried().Decision)

	f.spec.Agent.Policies.Budget = nil
	require.ErrorContains(t, b.Wanted(signals.BudgetRequest{Stop: true}), "the run has no budget")
}

// status.spend shows the limits with what people raised them by, and
// each agent's share.
func TestTheSpendStatusShowsTheRaisedLimits(t *testing.T) {
	f := newFakeRun(config.Budget{ToolCalls: calls(3)})
	var spent Spending
	spent.Add("a", policies.Spend{ToolCalls: 2})
	spent.Add("b", policies.Spend{ToolCalls: 1})
	spent.Raised = policies.Limits{ToolCalls: 4}
	out := New(f, &Hold{}, &spent).Spent(time.Time{})
	require.Equal(t, int64(3), out.ToolCalls)
	require.Equal(t, int64(7), out.Limits[policies.LimitToolCalls])
	require.Equal(t, int64(1), out.ByAgent["b"].ToolCalls)
	spent.NewAgent()
	require.Equal(t, int64(3), New(f, &Hold{}, &spent).Spent(time.Time{}).Limits[policies.LimitToolCalls])
}
