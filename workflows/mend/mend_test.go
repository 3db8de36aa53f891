package mend

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies/repair"
	"github.com/unstuck-dev/unstuck/signals"
)

// fakeRun is a run as the repairs see it, recording what they ask of it
// (the part alone; the run's own tests are in workflows/).
type fakeRun struct {
	spec    *config.Resolved
	gates   map[Gate]workflow.Version // absent: version 1
	asked   []Gate
	counts  map[string]int64
	nodes   []signals.Node
	refuse  string         // CheckArgs' answer
	spent   map[string]int // input tokens by node
	unknown bool           // KnownTool answers false
}

func newFakeRun(maxAttempts int) *fakeRun {
	spec := &config.Resolved{Agent: config.Agent{Name: "a"}}
	spec.Agent.Policies.Repair.MaxAttempts = maxAttempts
	return &fakeRun{spec: spec, gates: map[Gate]workflow.Version{}, counts: map[string]int64{}, spent: map[string]int{}}
}

func (f *fakeRun) Version(_ workflow.Context, g Gate) workflow.Version {
	f.asked = append(f.asked, g)
	if v, ok := f.gates[g]; ok {
		return v
	}
	return 1
}
func (f *fakeRun) Count(_ workflow.Context, name string, n int64, _ ...string) { f.counts[name] += n }
func (f *fakeRun) Spec() *config.Resolved                                      { return f.spec }
func (f *fakeRun) Task() string                                                { return "t" }
func (f *fakeRun) ModelAt() int                                                { return 0 }
func (f *fakeRun) KnownTool(string) bool                                       { return !f.unknown }
func (f *fakeRun) ToolSchema(config.Tool) (*jsonschema.Schema, error)          { return nil, nil }
func (f *fakeRun) CheckArgs(config.Tool, json.RawMessage) string               { return f.refuse }
func (f *fakeRun) AddNode(_ workflow.Context, n signals.Node) string {
	f.nodes = append(f.nodes, n)
	return "repair" + strconv.Itoa(len(f.nodes))
}
func (f *fakeRun) JSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
func (f *fakeRun) BudgetLeft(workflow.Context) (int, string) { return 0, "" }
func (f *fakeRun) Spend(_ workflow.Context, node string, input, _ int, _ bool) {
	f.spent[node] += input
}
func (f *fakeRun) ErrorText(err error) string { return err.Error() }
func (f *fakeRun) ModelOptions(_ workflow.Context, retry *temporal.RetryPolicy) workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: retry}
}

var typed = config.Tool{Name: "typed", Parameters: map[string]any{
	"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}},
}}

// inWorkflow runs body as a workflow; model answers the repair requests
// (nil: none is expected).
func inWorkflow(t *testing.T, model func(activities.RepairRequest) (json.RawMessage, error), body func(ctx workflow.Context)) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivityWithOptions(func(_ context.Context, req activities.RepairRequest) (json.RawMessage, error) {
		if model == nil {
			return nil, temporal.NewNonRetryableApplicationError("no repair request expected", "Test", nil)
		}
		return model(req)
	}, activity.RegisterOptions{Name: "RepairArgs"})
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		body(ctx)
		return nil
	})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
}

// A call's arguments are tried once: the same arguments again, however
// written, were tried; another call's are its own.
func TestTriedAnswersArgumentsIssuedBefore(t *testing.T) {
	m := New(newFakeRun(2), &Attempts{})
	require.False(t, m.Tried("c1", json.RawMessage(`{"a": 1, "b": 2}`)))
	require.True(t, m.Tried("c1", json.RawMessage(`{"b":2,"a":1}`)))
	require.False(t, m.Tried("c2", json.RawMessage(`{"a":1,"b":2}`)))
	require.False(t, m.Tried("c1", json.RawMessage(`not json`)), "arguments that are not JSON are never tried")
}

// A repair by rule is one attempt, a repair node and a counted rule; both
// rule sets repair it alike, so no gate is asked.
func TestARuleRepairIsAnAttemptANodeAndACount(t *testing.T) {
	f := newFakeRun(2)
	at := &Attempts{}
	inWorkflow(t, nil, func(ctx workflow.Context) {
		fixed, problem := New(f, at).Before(ctx, "c1", typed, json.RawMessage(`{"n":"3"}`), "n is not an integer")
		require.Empty(t, problem)
		require.JSONEq(t, `{"n":3}`, string(fixed))
	})
	require.Equal(t, 1, New(f, at).Left("c1"))
	require.Equal(t, 2, New(f, at).Left("c2"))
	require.Len(t, f.nodes, 1)
	require.Equal(t, signals.KindRepair, f.nodes[0].Kind)
	require.Equal(t, signals.StatusCompleted, f.nodes[0].Status)
	require.Equal(t, []string{"c1"}, f.nodes[0].Parents)
	require.Equal(t, int64(1), f.counts[MetricRepairs])
	require.Empty(t, f.asked)
}

// Where the rule sets differ, the run's gate decides: a run before it
// repairs with the first rules, which leave the call to the model.
func TestRulesThatDifferAskTheGate(t *testing.T) {
	f := newFakeRun(2)
	f.gates[GateRepairValues] = workflow.DefaultVersion
	f.gates[GateRepairSpend] = workflow.DefaultVersion
	var asked []activities.RepairRequest
	inWorkflow(t, func(req activities.RepairRequest) (json.RawMessage, error) {
		asked = append(asked, req)
		return json.RawMessage(`{"n":1250000}`), nil
	}, func(ctx workflow.Context) {
		fixed, problem := New(f, &Attempts{}).Before(ctx, "c1", typed, json.RawMessage(`{"n":"1,250,000"}`), "n is not an integer")
		require.Empty(t, problem)
		require.JSONEq(t, `{"n":1250000}`, string(fixed))
	})
	require.Equal(t, []Gate{GateRepairValues, GateRepairSpend}, f.asked)
	require.Len(t, asked, 1)
	require.Equal(t, "typed", asked[0].Tool.Name)
	require.False(t, asked[0].WithUsage, "before repair-spend the budget does not count it")
	require.Len(t, f.nodes, 1)
	require.Contains(t, string(f.nodes[0].Output), `"strategy":"model"`)
	require.Equal(t, int64(1), f.counts[MetricRepairsByModel])
}

// The model's arguments that still fail the schema fail the call, saying
// how many attempts were made; the repair node is failed, and the
// request's tokens are spent on it.
func TestModelArgumentsStillRefusedFailTheCall(t *testing.T) {
	f := newFakeRun(3)
	f.refuse = "n must be an integer"
	inWorkflow(t, func(req activities.RepairRequest) (json.RawMessage, error) {
		require.True(t, req.WithUsage)
		return json.RawMessage(`{"args":{"n":"x"},"input_tokens":10}`), nil
	}, func(ctx workflow.Context) {
		fixed, problem := New(f, &Attempts{}).Before(ctx, "c1", typed, json.RawMessage(`{}`), "n is missing")
		require.Nil(t, fixed)
		require.Equal(t, "n must be an integer (after 1 repair attempts)", problem)
	})
	require.Len(t, f.nodes, 1)
	require.Equal(t, signals.StatusFailed, f.nodes[0].Status)
	require.Contains(t, f.nodes[0].Error, "still refused")
	require.Equal(t, map[string]int{"repair1": 10}, f.spent)
}

// A model that answers nothing leaves the call's problem, with why.
func TestAModelThatFailsLeavesTheProblem(t *testing.T) {
	f := newFakeRun(1)
	inWorkflow(t, func(activities.RepairRequest) (json.RawMessage, error) {
		return nil, temporal.NewNonRetryableApplicationError("down", activities.BadRepairError, nil)
	}, func(ctx workflow.Context) {
		_, problem := New(f, &Attempts{}).Before(ctx, "c1", typed, json.RawMessage(`{}`), "n is missing")
		require.Contains(t, problem, "n is missing (the model could not repair the arguments: ")
	})
	require.Equal(t, signals.StatusFailed, f.nodes[0].Status)
}

// A call out of attempts is not repaired, by rule or by the model.
func TestNoAttemptsLeftNoRepair(t *testing.T) {
	f := newFakeRun(0)
	inWorkflow(t, nil, func(ctx workflow.Context) {
		m := New(f, &Attempts{})
		fixed, problem := m.Before(ctx, "c1", typed, json.RawMessage(`{"n":"3"}`), "why")
		require.Nil(t, fixed)
		require.Equal(t, "why", problem)
		_, ok := m.After(ctx, "c1", typed, json.RawMessage(`{"n":0}`), "'n' must be >= 1")
		require.False(t, ok)
	})
	require.Empty(t, f.nodes)
}

// A tool's refusal is read into a repair by rule.
func TestARefusalIsRepairedByRule(t *testing.T) {
	f := newFakeRun(1)
	inWorkflow(t, nil, func(ctx workflow.Context) {
		fixed, ok := New(f, &Attempts{}).After(ctx, "c1", typed, json.RawMessage(`{"n":0}`), "Value for 'n' must be >= 1")
		require.True(t, ok)
		require.JSONEq(t, `{"n":1}`, string(fixed))
	})
	require.Len(t, f.nodes, 1)
}

// Arguments sent as a JSON string holding an object are read whole, for
// a tool the agent has, in a run with the gate; the node shows what came.
func TestTextReadsArgumentsWhole(t *testing.T) {
	f := newFakeRun(1)
	inWorkflow(t, nil, func(ctx workflow.Context) {
		m := New(f, &Attempts{})
		require.True(t, m.Reads("typed", `"{\"n\":3}"`))
		fixed, ok := m.Text(ctx, "c1", activities.ToolCall{Name: "typed", Args: `"{\"n\":3}"`})
		require.True(t, ok)
		require.JSONEq(t, `{"n":3}`, string(fixed))
		require.Zero(t, m.Left("c1"))
	})
	require.Equal(t, []Gate{GateWholeArguments}, f.asked)
	require.Equal(t, json.RawMessage(`"{\"n\":3}"`), f.nodes[0].Args)
}

// An unknown tool's arguments, or a run before the gate, are not read.
func TestTextReadsNothingForAnUnknownToolOrAnOlderRun(t *testing.T) {
	f := newFakeRun(1)
	inWorkflow(t, nil, func(ctx workflow.Context) {
		tc := activities.ToolCall{Name: "typed", Args: `"{\"n\":3}"`}
		f.unknown = true
		_, ok := New(f, &Attempts{}).Text(ctx, "c1", tc)
		require.False(t, ok)
		require.False(t, New(f, &Attempts{}).Reads(tc.Name, tc.Args))
		f.unknown = false
		f.gates[GateWholeArguments] = workflow.DefaultVersion
		_, ok = New(f, &Attempts{}).Text(ctx, "c1", tc)
		require.False(t, ok)
	})
	require.Empty(t, f.nodes)
	require.False(t, New(newFakeRun(0), &Attempts{}).Reads("typed", `"{\"n\":3}"`), "an agent that does not repair reads nothing")
}

// Two repairs are alike when they answer alike: the same arguments, the
// same rules applied, the same validity.
func TestSameRepairComparesWhatTheRepairsAnswer(t *testing.T) {
	three := repair.Result{Args: map[string]any{"n": 3}, Valid: true, Repairs: []repair.Applied{{Strategy: "coerce_type", Path: "/n"}}}
	require.True(t, sameRepair(three, three))
	four := three
	four.Args = map[string]any{"n": 4}
	require.False(t, sameRepair(three, four))
	invalid := three
	invalid.Valid = false
	require.False(t, sameRepair(three, invalid))
	require.False(t, sameRepair(three, repair.Result{Args: three.Args, Valid: true}))
}
