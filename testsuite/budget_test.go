package testsuite

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	sdkpb "go.temporal.io/api/sdk/v1"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// counting (a test double) looks up 0, 1, 2, ... without end, or up to
// steps when steps > 0, then gives the output.
func counting(steps int) scriptedmodel.Script {
	return func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		i := scriptedmodel.NextStep(req)
		if steps > 0 && i >= steps {
			return scriptedmodel.CallTurn("final_output", map[string]any{"looked_up": i})
		}
		return scriptedmodel.CallTurn("lookup", map[string]any{"i": i})
	}
}

// unstuckCLI runs the unstuck CLI against the test server, as a person
// would, and answers what it printed.
func unstuckCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(binaries(t), "unstuck"), append(args, "--address", serverAddress)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// A model that never finishes, under a cost budget and a ladder without a
// person: the run stops before the request or call that would cross the
// budget, with its spend in the report, never over it.
func TestACostBudgetStopsARunBeforeItWouldCrossIt(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "{{MODEL}}", name: stubborn, context_window: 128000, max_output_tokens: 1000 }
tools:
  - { name: lookup, builtin: echo, parameters: { type: object } }
agents:
  - name: stubborn
    instructions: Look things up.
    tools: [lookup]
    policies: { max_steps: 500, escalation: [retry, stop], budget: { cost: { limit: 0.05, currency: USD } } }
prices:
  models: { stubborn: { input: 2.5, output: 10 } }
  tools: { lookup: 0.001 }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"stubborn": counting(0)})
	run := s.start(workflows.AgentInput{Agent: "stubborn", Task: "look everything up"})
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Contains(t, rep.Reason, "budget: the budget's cost would be crossed")
	spend := rep.Spend
	require.NotNil(t, spend)
	require.Equal(t, "USD", spend.Currency)
	require.LessOrEqual(t, spend.Cost, 0.05, "never over the budget")
	require.Greater(t, spend.Cost, 0.05-0.02, "stopped near it: a request's reply bound (0.01) and a call (0.001) from the limit")
	require.Zero(t, spend.Estimated, "the scripted model reports usage")
	reqs := s.model.Requests()
	t.Logf("stopped at %.6f of 0.05 USD after %d requests, %d calls, %d input and %d output tokens", spend.Cost, spend.ModelRequests, spend.ToolCalls, spend.InputTokens, spend.OutputTokens)
	require.Equal(t, int64(len(reqs)), spend.ModelRequests, "every request sent is counted")
	require.Equal(t, spend.ModelRequests, spend.ToolCalls, "one lookup per reply")
	require.Equal(t, spend, s.status(run).Spend, "status.spend says the same")
	b := nodesOf(s.trace(run), signals.KindBudget)
	require.Len(t, b, 1)
	require.Equal(t, signals.StatusFailed, b[0].Status)
	require.Contains(t, string(b[0].Args), `"limit":"cost"`)
	recordAndReplay(t, run, "budget_cost_stop")
	// Recorded again since the last replies' bound shrinks to what the
	// budget leaves (version budget-reply-bound): the history above stays.
	last := reqs[len(reqs)-1]
	require.Less(t, last.MaxCompletionTokens, 1000, "the last request's reply was bound by what the budget left")
	recordAndReplay(t, run, "budget_reply_shrunk")
}

// A run at its budget waits for a person: raises that are not positive,
// or name a limit the budget does not have, are refused with the field
// named; a raise lets it go on, and the next crossing waits again.
func TestAPersonRaisesARunsBudgetTwiceAndItCompletes(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "{{MODEL}}", name: counter }
tools:
  - { name: lookup, builtin: echo, parameters: { type: object } }
agents:
  - name: counter
    instructions: Look things up.
    tools: [lookup]
    policies: { escalation: [human, stop], budget: { tool_calls: 2 } }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"counter": counting(4)})
	run := s.start(workflows.AgentInput{Agent: "counter", Task: "look four things up"})
	atRung := func() { s.awaitPhase(run, signals.PhaseAwaitingHuman) }
	atRung()
	// The Web UI's current details say what waits and how to answer.
	var meta sdkpb.WorkflowMetadata
	v, err := s.client.QueryWorkflow(context.Background(), run.GetID(), "", workflowMetadataQuery)
	require.NoError(t, err)
	require.NoError(t, v.Get(&meta))
	require.Contains(t, meta.GetCurrentDetails(), "**waiting at the budget rung**")
	require.Contains(t, meta.GetCurrentDetails(), "the budget's tool_calls would be crossed: 2 spent, 1 more needed, limit 2")
	require.Contains(t, meta.GetCurrentDetails(), "--name budget --input '{\"stop\":true}'")
	budget := func(req signals.BudgetRequest) error { return s.update(run, signals.Budget, req) }
	require.ErrorContains(t, budget(signals.BudgetRequest{Raise: &signals.BudgetRaise{ToolCalls: -1}}), "budget: raise.tool_calls must be a positive amount, got -1")
	require.ErrorContains(t, budget(signals.BudgetRequest{Raise: &signals.BudgetRaise{Cost: 1}}), "budget: raise.cost: the run's budget has no such limit to raise")
	require.ErrorContains(t, budget(signals.BudgetRequest{}), `budget: give "raise"`)
	require.Equal(t, int64(2), s.status(run).Spend.ToolCalls)
	require.NoError(t, budget(signals.BudgetRequest{Audit: signals.Audit{By: "ops", Reason: "one more"}, Raise: &signals.BudgetRaise{ToolCalls: 1}}))
	atRung()
	// The second raise through the CLI, as a person would.
	cli := func(args ...string) string { return unstuckCLI(t, args...) }
	status := cli("status", run.GetID())
	require.Regexp(t, `tool_calls\s+3\s+of 3`, status)
	require.Contains(t, cli("budget", run.GetID(), "--tool-calls", "5", "--by", "ops"), "budget raise accepted by "+run.GetID())
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"looked_up": 4}`, string(res.Output))
	require.Equal(t, int64(4), res.Spend.ToolCalls)
	require.EqualValues(t, 8, res.Spend.Limits["tool_calls"])
	b := nodesOf(s.trace(run), signals.KindBudget)
	require.Len(t, b, 2)
	for _, n := range b {
		require.Equal(t, signals.StatusCompleted, n.Status)
		require.Contains(t, string(n.Output), `"by":"ops"`)
	}
	require.ErrorContains(t, budget(signals.BudgetRequest{Stop: true}), "", "a completed run takes no decision")
	recordAndReplay(t, run, "budget_raise")
}

// A run at one tool's limit waits for a person, who must raise that
// limit (tool_calls_per_tool, from the CLI); under a cost budget, every
// request tells the provider the reply bound the budget counted.
func TestAPersonRaisesOneToolsLimitFromTheCLI(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "{{MODEL}}", name: counter, context_window: 128000, max_output_tokens: 1000 }
tools:
  - { name: lookup, builtin: echo, parameters: { type: object } }
agents:
  - name: counter
    instructions: Look things up.
    tools: [lookup]
    policies: { escalation: [human, stop], budget: { tool_calls_per_tool: { lookup: 2 }, cost: { limit: 1, currency: USD } } }
prices:
  models: { counter: { input: 1, output: 2 } }
  tools: { lookup: 0.001 }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"counter": counting(3)})
	run := s.start(workflows.AgentInput{Agent: "counter", Task: "look three things up"})
	s.awaitPhase(run, signals.PhaseAwaitingHuman)
	err := s.update(run, signals.Budget, signals.BudgetRequest{Raise: &signals.BudgetRaise{Cost: 1}})
	require.ErrorContains(t, err, "the budget's tool_calls_per_tool.lookup would be crossed: 2 spent, 1 more needed, limit 2: a raise must raise tool_calls_per_tool.lookup")
	out := unstuckCLI(t, "budget", run.GetID(), "--tool-calls-per-tool", "lookup=1", "--by", "ops")
	require.Contains(t, out, "budget raise accepted by "+run.GetID())
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"looked_up": 3}`, string(res.Output))
	require.Equal(t, int64(3), res.Spend.ToolCallsBy["lookup"])
	for i, req := range s.model.Requests() {
		require.Equal(t, 1000, req.MaxCompletionTokens, "request %d: the reply's bound the budget counted is sent", i)
	}
	recordAndReplay(t, run, "budget_tool_raise")
}

// Each kind of limit stops a run before it would be crossed, on the real
// server and worker, without a human rung; with one, no decision within
// human_timeout stops it too.
func TestEachLimitKindStopsARunBeforeItIsCrossed(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "{{MODEL}}", name: counter, context_window: 128000, max_output_tokens: 1000 }
tools:
  - { name: lookup, builtin: echo, parameters: { type: object } }
agents:
  - { name: requests, instructions: Count., tools: [lookup], policies: { escalation: [stop], budget: { model_requests: 3 } } }
  - { name: input, instructions: Count., tools: [lookup], policies: { escalation: [stop], budget: { input_tokens: 600 } } }
  - { name: output, instructions: Count., tools: [lookup], policies: { escalation: [stop], budget: { output_tokens: 300 } } }
  - { name: calls, instructions: Count., tools: [lookup], policies: { escalation: [stop], budget: { tool_calls: 2 } } }
  - { name: per_tool, instructions: Count., tools: [lookup], policies: { escalation: [stop], budget: { tool_calls_per_tool: { lookup: 1 } } } }
  - { name: wall, instructions: Count., tools: [lookup], policies: { escalation: [stop], budget: { wall_time: 1ms } } }
  - { name: timeout, instructions: Count., tools: [lookup], policies: { escalation: [human, stop], human_timeout: 1s, budget: { tool_calls: 1 } } }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"counter": counting(0)})
	for _, c := range []struct{ agent, says string }{
		{"requests", "the budget's model_requests would be crossed: 3 spent, 1 more needed, limit 3"},
		{"input", "the budget's input_tokens would be crossed"},
		{"output", "256 more needed, limit 300"}, // the least reply worth asking for, once less is left
		{"calls", "the budget's tool_calls would be crossed: 2 spent, 1 more needed, limit 2"},
		{"per_tool", "the budget's tool_calls_per_tool.lookup would be crossed: 1 spent, 1 more needed, limit 1"},
		{"wall", "the budget's wall_time would be crossed"},
		{"timeout", "no decision within human_timeout (1s)"},
	} {
		run := s.start(workflows.AgentInput{Agent: c.agent, Task: "count"})
		_, err := s.result(run)
		rep := stoppedReport(t, err)
		require.Contains(t, rep.Reason, c.says, c.agent)
		require.NotNil(t, rep.Spend, c.agent)
		for name, limit := range rep.Spend.Limits {
			spent := map[string]float64{"model_requests": float64(rep.Spend.ModelRequests), "input_tokens": float64(rep.Spend.InputTokens),
				"output_tokens": float64(rep.Spend.OutputTokens), "tool_calls": float64(rep.Spend.ToolCalls)}
			if n, ok := spent[name]; ok {
				require.LessOrEqual(t, n, limit.(float64), "%s: %s never crossed", c.agent, name)
			}
		}
	}
}
