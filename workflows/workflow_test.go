package workflows

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// These tests run AgentWorkflow in Temporal's test environment with the
// activities mocked: the model is a scripted sequence of replies (a test
// double) and tools answer canned results; the workflow code is real.

func testSpec() *config.Resolved {
	f := &config.File{
		Model: config.Model{BaseURL: "http://127.0.0.1:1/v1", Name: "scripted:test"},
		Tools: []config.Tool{
			{Name: "search_flights", Builtin: "search_flights", Parameters: map[string]any{"type": "object"}},
			{Name: "book_flight", Builtin: "book_flight"},
		},
		Agents: []config.Agent{{Name: "travel", Instructions: "Book travel.", Tools: []string{"search_flights", "book_flight"}}},
	}
	return mustResolve(f, "travel")
}

// mustResolve is a test config with its defaults, resolved for agent
// (no environment); a mistake in it is a bug of the test.
func mustResolve(f *config.File, agent string) *config.Resolved {
	f.SetDefaults()
	r, err := f.Resolve(agent, func(string) (string, bool) { return "", false })
	if err != nil {
		panic(err)
	}
	return r
}

type harness struct {
	// mu guards the recorded requests: mocked activities run in goroutines.
	mu       sync.Mutex
	t        testing.TB
	env      *testsuite.TestWorkflowEnvironment
	requests []activities.ModelRequest
	toolReqs []activities.ToolRequest
	// toolLocal says, call by call, whether it ran as a local activity;
	// localFails makes every local attempt fail as a retryable error.
	toolLocal  []bool
	localFails bool
	// repairModel answers focused repair requests (a test double).
	repairModel func(activities.RepairRequest) (json.RawMessage, error)
	repairReqs  []activities.RepairRequest
	// repairUsage are the tokens each repair request reports, to a run
	// that asks for them (RepairRequest.WithUsage).
	repairUsage activities.RepairReply
	// modelTakes is how long each model request takes, on the workflow's
	// clock.
	modelTakes time.Duration
	// model, when set, answers each model request in the script's place
	// (a model that reads what it is sent).
	model func(activities.ModelRequest) activities.ModelReply
	// downModels fail the model requests to the places of the agent's
	// list they name (a fallback then answers).
	downModels map[int]error
	// modelFails, when set, fails each model request it answers an error
	// for (a model that is down, say) before any other double answers.
	modelFails func(activities.ModelRequest) error
	// peers are the other agents ResolveAgent knows (a handoff's targets).
	peers map[string]*config.Resolved
	// window, when set, counts each prompt (window.go) as the model
	// activity does: one over the request's prompt budget comes back
	// unsent, and takes no scripted reply.
	window *promptWindow
}

// before makes the run one recorded before the changes named: before
// versionRelease (so each change is asked on its own) and before each of
// changeIDs.
func (h *harness) before(changeIDs ...string) {
	h.env.OnGetVersion(versionRelease, workflow.DefaultVersion, releaseAll).Return(workflow.DefaultVersion)
	for _, id := range changeIDs {
		h.env.OnGetVersion(id, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	}
}

func newHarness(t testing.TB, spec *config.Resolved, replies []activities.ModelReply, tool func(activities.ToolRequest) (json.RawMessage, error)) *harness {
	return newHarnessOn(&testsuite.WorkflowTestSuite{}, t, spec, replies, tool)
}

// newHarnessOn is newHarness in a test suite the caller set up (a metrics
// handler, say).
func newHarnessOn(s *testsuite.WorkflowTestSuite, t testing.TB, spec *config.Resolved, replies []activities.ModelReply, tool func(activities.ToolRequest) (json.RawMessage, error)) *harness {
	h := &harness{t: t, env: s.NewTestWorkflowEnvironment()}
	h.env.RegisterWorkflow(AgentWorkflow)
	h.env.RegisterActivity(&activities.Activities{})
	h.env.OnActivity(acts.ResolveAgent, mock.Anything, mock.Anything).Return(
		func(_ context.Context, name string) (*config.Resolved, error) {
			if p, ok := h.peers[name]; ok {
				return p, nil
			}
			if name != spec.Agent.Name {
				return nil, temporal.NewNonRetryableApplicationError("unknown agent "+name, activities.UnknownAgentError, nil)
			}
			return spec, nil
		})
	// Continued runs of these tests are the engine's own (the test sets
	// the continued execution): the server's record would confirm them.
	h.env.OnActivity(acts.VerifyCarried, mock.Anything, mock.Anything).Return(nil)
	h.env.OnActivity(acts.CallModel, mock.Anything, mock.Anything).Return(
		func(_ context.Context, req activities.ModelRequest) (*activities.ModelReply, error) {
			if err := h.downModels[req.Fallback]; err != nil {
				return nil, err
			}
			if h.modelFails != nil {
				if err := h.modelFails(req); err != nil {
					return nil, err
				}
			}
			h.mu.Lock()
			h.requests = append(h.requests, req)
			h.mu.Unlock()
			if over := h.window.over(req); over != nil {
				return &activities.ModelReply{OverBudget: over}, nil
			}
			if h.model != nil {
				r := h.model(req)
				return &r, nil
			}
			i := len(h.requests) - 1 - h.window.unsent()
			if i >= len(replies) {
				return h.window.answered(&activities.ModelReply{ReplyID: "r-end", Content: "done"}), nil
			}
			r := replies[i]
			if r.ReplyID == "" {
				r.ReplyID = "r" + string(rune('0'+i))
			}
			if req.SpendTokens > 0 && r.InputTokens > req.SpendTokens {
				// As the model activity: a prompt over the budget's bound
				// is counted and not sent.
				return &activities.ModelReply{OverSpend: &activities.PromptCount{Tokens: r.InputTokens, Budget: req.SpendTokens}}, nil
			}
			return h.window.answered(&r), nil
		}).AfterFn(func() time.Duration { return h.modelTakes })
	h.env.OnActivity(acts.RepairArgs, mock.Anything, mock.Anything).Return(
		func(_ context.Context, req activities.RepairRequest) (json.RawMessage, error) {
			h.mu.Lock()
			h.repairReqs = append(h.repairReqs, req)
			h.mu.Unlock()
			if h.repairModel == nil {
				return nil, temporal.NewNonRetryableApplicationError("no repair model in this test", activities.BadRepairError, nil)
			}
			args, err := h.repairModel(req)
			if err != nil || !req.WithUsage {
				return args, err
			}
			reply := h.repairUsage
			reply.Args = args
			return mustJSON(reply), nil
		})
	h.env.OnActivity(acts.RunTool, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, req activities.ToolRequest) (json.RawMessage, error) {
			local := activity.GetInfo(ctx).IsLocalActivity
			h.mu.Lock()
			h.toolReqs = append(h.toolReqs, req)
			h.toolLocal = append(h.toolLocal, local)
			h.mu.Unlock()
			if local && h.localFails {
				return nil, temporal.NewApplicationError("the tool is down", string(policies.Transient))
			}
			return tool(req)
		})
	return h
}

func (h *harness) run(in AgentInput) (*AgentResult, error) {
	if in.Continued != nil || len(in.ContinuedGzip) > 0 {
		// As Temporal does for a run started by continue-as-new.
		h.env.SetContinuedExecutionRunID("the-previous-run")
	}
	h.env.ExecuteWorkflow(AgentWorkflow, in)
	require.True(h.t, h.env.IsWorkflowCompleted())
	if err := h.env.GetWorkflowError(); err != nil {
		return nil, err
	}
	var res AgentResult
	require.NoError(h.t, h.env.GetWorkflowResult(&res))
	return &res, nil
}

func (h *harness) trace() signals.Trace {
	v, err := h.env.QueryWorkflow(signals.QueryTrace)
	require.NoError(h.t, err)
	var tr signals.Trace
	require.NoError(h.t, v.Get(&tr))
	return tr
}

func call(id, name, args string) activities.ToolCall {
	return activities.ToolCall{ID: id, Name: name, Args: args}
}

func okTool(activities.ToolRequest) (json.RawMessage, error) {
	return json.RawMessage(`{"flights":[{"id":"UA1"}]}`), nil
}

func kinds(tr signals.Trace) string {
	var k []string
	for _, n := range tr.Nodes {
		k = append(k, string(n.Kind)+":"+string(n.Status))
	}
	return strings.Join(k, " ")
}

func TestToolCallThenFinalOutputCompletes(t *testing.T) {
	h := newHarness(t, testSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("c1", "search_flights", `{"from":"NYC","to":"LAX","date":"2024-01-15"}`)}},
		{ToolCalls: []activities.ToolCall{call("c2", "final_output", `{"flight":"UA1"}`)}},
	}, okTool)
	res, err := h.run(AgentInput{Agent: "travel", Task: "Book NYC to LAX"})
	require.NoError(t, err)
	require.Equal(t, ResultCompleted, res.Status)
	require.JSONEq(t, `{"flight":"UA1"}`, string(res.Output))
	require.Equal(t, 2, res.Steps)
	require.Equal(t, []string{}, res.HandoffPath)

	tr := h.trace()
	require.Equal(t, "task:completed request:completed call:completed request:completed call:completed output:completed", kinds(tr))
	require.Equal(t, "search_flights", tr.Nodes[2].Tool)
	require.Equal(t, []string{tr.Nodes[1].ID}, tr.Nodes[2].Parents)
	require.JSONEq(t, `{"flights":[{"id":"UA1"}]}`, string(tr.Nodes[2].Output))

	// The first request carries the whole (short) conversation; the second
	// only what is new: the tool result.
	require.Equal(t, 0, h.requests[0].Base)
	require.Len(t, h.requests[0].Delta, 2)
	require.Equal(t, 3, h.requests[1].Base)
	require.Len(t, h.requests[1].Delta, 1)
	require.Equal(t, "tool", h.requests[1].Delta[0].Role)
	require.Equal(t, "c1", h.requests[1].Delta[0].ToolCallID)
	require.Equal(t, "r0", h.requests[1].AfterReply)

	// The tool got the arguments and a call id for its idempotency key.
	require.Len(t, h.toolReqs, 1)
	require.Equal(t, tr.Nodes[2].ID, h.toolReqs[0].CallID)
	require.JSONEq(t, `{"from":"NYC","to":"LAX","date":"2024-01-15"}`, string(h.toolReqs[0].Args))
}

func TestContentReplyIsTheOutput(t *testing.T) {
	h := newHarness(t, testSpec(), []activities.ModelReply{{Content: "All booked."}}, okTool)
	res, err := h.run(AgentInput{Agent: "travel", Task: "Book"})
	require.NoError(t, err)
	require.JSONEq(t, `"All booked."`, string(res.Output))
	require.Equal(t, 1, res.Steps)
}

func TestStructuralErrorsGoBackToTheModel(t *testing.T) {
	h := newHarness(t, testSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{
			call("c1", "bok_flight", `{}`),
			call("c2", "search_flights", `{"from": "NYC",`),
			call("c3", "search_flights", `[1,2]`),
		}},
		{Content: "gave up"},
	}, okTool)
	_, err := h.run(AgentInput{Agent: "travel", Task: "Book"})
	require.NoError(t, err)
	require.Empty(t, h.toolReqs, "no malformed call may reach a tool")

	delta := h.requests[1].Delta
	require.Len(t, delta, 3)
	var env struct {
		Call  map[string]any `json:"call"`
		Error string         `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(delta[0].Content), &env))
	require.Equal(t, "bok_flight", env.Call["tool"])
	require.Contains(t, env.Error, `unknown tool "bok_flight"`)
	require.Contains(t, env.Error, "search_flights")
	require.NoError(t, json.Unmarshal([]byte(delta[1].Content), &env))
	require.Contains(t, env.Error, "not valid JSON")
	require.Equal(t, `{"from": "NYC",`, env.Call["args"], "the malformed text is shown as it was")
	require.NoError(t, json.Unmarshal([]byte(delta[2].Content), &env))
	require.Contains(t, env.Error, "JSON object")
}

func TestToolFailureReachesModelAndStatus(t *testing.T) {
	h := newHarness(t, testSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("c1", "book_flight", `{"flight_id":"X"}`)}},
		{Content: "could not book"},
	}, func(activities.ToolRequest) (json.RawMessage, error) {
		return nil, temporal.NewNonRetryableApplicationError("tool book_flight: HTTP 409: sold out", "persistent", nil)
	})
	var status signals.Status
	h.env.RegisterDelayedCallback(func() {}, time.Second)
	res, err := h.run(AgentInput{Agent: "travel", Task: "Book"})
	require.NoError(t, err)
	require.Equal(t, "tool book_flight: HTTP 409: sold out", res.LastError)
	v, err := h.env.QueryWorkflow(signals.QueryStatus)
	require.NoError(t, err)
	require.NoError(t, v.Get(&status))
	require.Equal(t, "tool book_flight: HTTP 409: sold out", status.LastError)
	require.Equal(t, signals.PhaseCompleted, status.Phase)

	tr := h.trace()
	require.Equal(t, signals.StatusFailed, tr.Nodes[2].Status)
	require.Equal(t, "tool book_flight: HTTP 409: sold out", tr.Nodes[2].Error)
	require.Contains(t, h.requests[1].Delta[0].Content, `"error":"tool book_flight: HTTP 409: sold out"`)
}

func stopReport(t *testing.T, err error) AgentResult {
	t.Helper()
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "want an application error, got %v", err)
	require.Equal(t, signals.StoppedErrorType, app.Type())
	var rep AgentResult
	require.NoError(t, app.Details(&rep))
	return rep
}

func TestMaxStepsStopsWithAReport(t *testing.T) {
	spec := testSpec()
	spec.Agent.Policies.MaxSteps = 3
	var replies []activities.ModelReply
	for i := 0; i < 10; i++ {
		replies = append(replies, activities.ModelReply{ToolCalls: []activities.ToolCall{call("c", "search_flights", `{}`)}})
	}
	h := newHarness(t, spec, replies, okTool)
	_, err := h.run(AgentInput{Agent: "travel", Task: "Loop forever"})
	require.Error(t, err)
	rep := stopReport(t, err)
	require.Equal(t, ResultStopped, rep.Status)
	require.Equal(t, 3, rep.Steps)
	require.Contains(t, rep.Reason, "max_steps (3)")
	require.Len(t, h.requests, 3)
}

func TestModelFailureStopsWithLastError(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(AgentWorkflow)
	env.RegisterActivity(&activities.Activities{})
	spec := testSpec()
	env.OnActivity(acts.ResolveAgent, mock.Anything, mock.Anything).Return(spec, nil)
	env.OnActivity(acts.CallModel, mock.Anything, mock.Anything).Return(nil,
		temporal.NewNonRetryableApplicationError(`model "x" at http://127.0.0.1:1/v1: HTTP 401: bad key`, activities.ModelRejectedError, nil))
	env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "travel", Task: "Book"})
	rep := stopReport(t, env.GetWorkflowError())
	require.Contains(t, rep.Reason, "model request failed")
	require.Contains(t, rep.LastError, "HTTP 401: bad key")
}

func TestOutputSchemaRefusalIsBounded(t *testing.T) {
	spec := testSpec()
	spec.Agent.Policies.Repair.MaxAttempts = 2
	bad := activities.ModelReply{ToolCalls: []activities.ToolCall{call("c", "final_output", `{"price":"cheap"}`)}}
	h := newHarness(t, spec, []activities.ModelReply{bad, bad, bad, bad}, okTool)
	schema := map[string]any{"type": "object", "required": []any{"price"}, "properties": map[string]any{"price": map[string]any{"type": "number"}}}
	_, err := h.run(AgentInput{Agent: "travel", Task: "Price", OutputSchema: schema})
	rep := stopReport(t, err)
	require.Contains(t, rep.Reason, "output schema 3 times")
	require.Len(t, h.requests, 3)
	require.Contains(t, h.requests[1].Delta[0].Content, "does not match the output schema")
}

func TestOutputSchemaAcceptsValidContent(t *testing.T) {
	h := newHarness(t, testSpec(), []activities.ModelReply{{Content: "```json\n{\"price\": 12}\n```"}}, okTool)
	schema := map[string]any{"type": "object", "required": []any{"price"}, "properties": map[string]any{"price": map[string]any{"type": "number"}}}
	res, err := h.run(AgentInput{Agent: "travel", Task: "Price", OutputSchema: schema})
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 12}`, string(res.Output))
}

func TestBadInputIsRefusedNamingTheField(t *testing.T) {
	h := newHarness(t, testSpec(), nil, okTool)
	_, err := h.run(AgentInput{Agent: "travel", Task: " ", Input: json.RawMessage(`[1]`)})
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app))
	require.Equal(t, BadInputError, app.Type())
	require.Contains(t, app.Message(), "input.task is empty")
	require.Contains(t, app.Message(), "input.input must be a JSON object")
}

func TestUnknownAgentFailsClearly(t *testing.T) {
	h := newHarness(t, testSpec(), nil, okTool)
	_, err := h.run(AgentInput{Agent: "nobody", Task: "x"})
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app))
	require.Equal(t, activities.UnknownAgentError, app.Type())
}

func TestOutputPathIsStrippedAndStored(t *testing.T) {
	h := newHarness(t, testSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("c1", "search_flights", `{"from":"NYC","_outputPath":"†state.flights"}`)}},
		{Content: "ok"},
	}, okTool)
	_, err := h.run(AgentInput{Agent: "travel", Task: "Search"})
	require.NoError(t, err)
	require.JSONEq(t, `{"from":"NYC"}`, string(h.toolReqs[0].Args))
}
