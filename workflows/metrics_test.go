package workflows

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// The agent's counters, read from an in-memory OpenTelemetry reader behind
// the same Temporal metrics handler the worker serves on --metrics-listen.

// meteredSuite is a test suite whose metrics land in the returned reader.
func meteredSuite() (*testsuite.WorkflowTestSuite, *sdkmetric.ManualReader) {
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	var s testsuite.WorkflowTestSuite
	s.SetMetricsHandler(temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{
		Meter: provider.Meter("test"), UseMonotonicCounters: true,
	}))
	return &s, reader
}

// counted sums a counter over the data points whose attributes hold every
// key=value pair given.
func counted(t *testing.T, reader *sdkmetric.ManualReader, name string, keyValues ...string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	var total int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			sum, ok := m.Data.(metricdata.Sum[int64])
			require.True(t, ok, "%s is a %T, not an int64 counter", name, m.Data)
			require.True(t, sum.IsMonotonic, "%s is a counter", name)
			for _, dp := range sum.DataPoints {
				if hasAll(dp.Attributes, keyValues) {
					total += dp.Value
				}
			}
		}
	}
	return total
}

func hasAll(set attribute.Set, keyValues []string) bool {
	for i := 0; i+1 < len(keyValues); i += 2 {
		v, ok := set.Value(attribute.Key(keyValues[i]))
		if !ok || v.AsString() != keyValues[i+1] {
			return false
		}
	}
	return true
}

func TestMetricsCountALoopAndTheRungTaken(t *testing.T) {
	s, reader := meteredSuite()
	book := call("k", "book_flight", `{"flight_id":"UA1","passengers":1}`)
	replies := repeat(10, book, activities.ModelReply{Content: "x"})
	for i := range replies {
		replies[i].InputTokens, replies[i].OutputTokens = 100, 7
	}
	h := newHarnessOn(s, t, stubbornSpec("retry", "stop"), replies, failingTool)
	_, err := h.run(AgentInput{Agent: "travel", Task: "book"})
	rep := stopReport(t, err)
	require.Equal(t, []string{"stop"}, actions(rep.Escalations), "a persistent failure skips retry")

	require.EqualValues(t, 1, counted(t, reader, MetricLoopsDetected, "agent", "travel"))
	require.EqualValues(t, 1, counted(t, reader, MetricRungsTaken, "rung", "stop", "agent", "travel"))
	require.EqualValues(t, 0, counted(t, reader, MetricRungsTaken, "rung", "retry"))
	require.EqualValues(t, 0, counted(t, reader, MetricRepairs))
	// Three requests, each the loop's call, before the ladder stopped it.
	require.Len(t, h.requests, 3)
	require.EqualValues(t, 300, counted(t, reader, MetricModelTokens, "direction", "input"))
	require.EqualValues(t, 21, counted(t, reader, MetricModelTokens, "direction", "output"))
}

func TestMetricsCountRepairsByRuleAndByModel(t *testing.T) {
	s, reader := meteredSuite()
	h := newHarnessOn(s, t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "typed", `{"n": "3"}`), call("k2", "typed", `{"n": "three"}`)}},
		{Content: "ok"},
	}, echoTool)
	h.repairModel = func(activities.RepairRequest) (json.RawMessage, error) { return json.RawMessage(`{"n": 3}`), nil }
	_, err := h.run(AgentInput{Agent: "agent", Task: "count to three"})
	require.NoError(t, err)

	require.EqualValues(t, 1, counted(t, reader, MetricRepairs, "rule", "coerce_type", "agent", "agent"))
	require.EqualValues(t, 1, counted(t, reader, MetricRepairs), "the model's repair is not a rule's")
	require.EqualValues(t, 1, counted(t, reader, MetricRepairsByModel, "outcome", "repaired"))
	require.EqualValues(t, 0, counted(t, reader, MetricLoopsDetected))
}

func TestMetricsCountApprovalDecisionsAndEdits(t *testing.T) {
	run := func(decide func(h *harness)) *sdkmetric.ManualReader {
		s, reader := meteredSuite()
		h := newHarnessOn(s, t, approvalSpec(), []activities.ModelReply{
			{ToolCalls: []activities.ToolCall{call("k1", "b", `{"seat": "12A"}`), call("k2", "a", `{"q": 1}`)}},
			{Content: "done"},
		}, echoTool)
		decide(h)
		_, err := h.run(AgentInput{Agent: "agent", Task: "book"})
		require.NoError(t, err)
		return reader
	}
	var edited, approved, rejected updateResult
	// A person edits the waiting call (n3), then approves it.
	reader := run(func(h *harness) {
		h.edit(time.Minute, signals.EditRequest{NodeID: "n3", Args: json.RawMessage(`{"seat": "14C"}`), Audit: signals.Audit{By: "bob"}}, &edited)
		h.approve(2*time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "approve"}, &approved)
	})
	require.NoError(t, edited.err)
	require.NoError(t, approved.err)
	require.EqualValues(t, 1, counted(t, reader, MetricEdits, "agent", "agent"))
	require.EqualValues(t, 1, counted(t, reader, MetricApprovals, "decision", "approve"))
	require.EqualValues(t, 1, counted(t, reader, MetricApprovals))

	reader = run(func(h *harness) {
		h.approve(time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "reject"}, &rejected)
	})
	require.EqualValues(t, 1, counted(t, reader, MetricApprovals, "decision", "reject"))
	require.EqualValues(t, 0, counted(t, reader, MetricEdits))

	reader = run(func(*harness) {}) // no decision within human_timeout
	require.EqualValues(t, 1, counted(t, reader, MetricApprovals, "decision", "timeout"))
}

func TestMetricsCountHandoffsTakenAndRefused(t *testing.T) {
	// run has general's model hand the run to orders by the handoff tool;
	// the worker resolves only the agents in peers (and general).
	run := func(peers map[string]*config.Resolved) (*harness, *sdkmetric.ManualReader) {
		s, reader := meteredSuite()
		h := newHarnessOn(s, t, deskSpecs()["general"], []activities.ModelReply{handoffToolReply("orders")}, echoTool)
		h.peers = peers
		h.env.OnActivity(acts.ReadRegistry, mock.Anything, mock.Anything).Return([]activities.AgentLoad{}, nil)
		_, _ = h.run(AgentInput{Agent: "general", Task: "where is order 7?"}) // its end is read below
		return h, reader
	}

	h, reader := run(deskSpecs())
	require.Equal(t, "orders", continuedInput(t, h).Continued.Spec.Agent.Name, "the handoff was taken")
	require.EqualValues(t, 1, counted(t, reader, MetricHandoffs, "outcome", "taken", "trigger", "tool", "agent", "general"),
		"counted as the agent handing over")
	require.EqualValues(t, 1, counted(t, reader, MetricHandoffs), "counted once")

	// The worker resolves no other agent: orders and the person each
	// refuse, and the run stops with general, one refused handoff.
	h, reader = run(map[string]*config.Resolved{})
	require.ErrorContains(t, h.env.GetWorkflowError(), "no agent can take the run")
	require.EqualValues(t, 1, counted(t, reader, MetricHandoffs, "outcome", "refused", "trigger", "tool", "agent", "general"))
	require.EqualValues(t, 1, counted(t, reader, MetricHandoffs), "counted once")
}

// A compaction and a model fallback are counted, by kind and by models.
func TestCompactionsAndModelFallbacksAreCounted(t *testing.T) {
	s, reader := meteredSuite()
	h := newHarnessOn(s, t, contextSpec(), compactingReplies(), echoTool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "count"})
	require.NoError(t, err)
	require.Equal(t, int64(1), counted(t, reader, MetricCompactions, "kind", "clear", "agent", "agent"))
	require.Zero(t, counted(t, reader, MetricCompactions, "kind", "summary"))

	s, reader = meteredSuite()
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(AgentWorkflow)
	env.RegisterActivity(&activities.Activities{})
	spec := testSpec()
	spec.Model.Fallbacks = []config.ModelFallback{{Name: "backup"}}
	env.OnActivity(acts.ResolveAgent, mock.Anything, mock.Anything).Return(spec, nil)
	env.OnActivity(acts.CallModel, mock.Anything, mock.Anything).Return(
		func(_ context.Context, req activities.ModelRequest) (*activities.ModelReply, error) {
			if req.Fallback == 0 {
				return nil, unavailable
			}
			return &activities.ModelReply{ReplyID: "r", Content: "done"}, nil
		})
	env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "travel", Task: "Book"})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, int64(1), counted(t, reader, MetricModelFallbacks, "from", "scripted:test", "to", "backup"))
}

// What a run spends is counted (metrics by agent) and carried to the
// agent a handoff gives the run, split by agent.
func TestSpendIsCountedAndCarriedAcrossAHandoff(t *testing.T) {
	s, reader := meteredSuite()
	reply := handoffToolReply("orders")
	reply.InputTokens, reply.OutputTokens = 50, 5
	h := newHarnessOn(s, t, deskSpecs()["general"], []activities.ModelReply{reply}, echoTool)
	h.peers = deskSpecs()
	h.env.OnActivity(acts.ReadRegistry, mock.Anything, mock.Anything).Return([]activities.AgentLoad{}, nil)
	_, _ = h.run(AgentInput{Agent: "general", Task: "where is order 7?"})
	next := continuedInput(t, h).Continued
	require.Equal(t, "orders", next.Spec.Agent.Name)
	require.Equal(t, int64(1), next.Spend.ModelRequests)
	require.Equal(t, int64(50), next.SpendBy["general"].InputTokens, "attributed to the agent that spent it")
	require.Nil(t, next.SpendBy["orders"])
	require.EqualValues(t, 1, counted(t, reader, MetricSpendModelRequests, "agent", "general"))
}
