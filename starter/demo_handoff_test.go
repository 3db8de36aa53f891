package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/unstuck-dev/unstuck/builtin"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/child"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// What `unstuck demo handoff` is made of, without a server: its agents,
// their scripts (through the demo's own scripted model server and the real
// built-in tools), its command, and the scenario itself against a fake run.
// The chain itself runs on the real server in testsuite/handoff_test.go.

// The chain's agents load beside the others: general may hand to anyone,
// orders and refunds to whom they name, the supervisor is a person with an
// output schema; every model agent talks to the scripted model the demo
// started, whatever OPENAI_BASE_URL and OPENAI_API_KEY say.
func TestDemoHandoffConfig(t *testing.T) {
	f, getenv := demoFileWithARealModel(t)

	for name, model := range map[string]string{
		"general": scriptedmodel.SupportGeneral, "orders": scriptedmodel.SupportOrders, "refunds": scriptedmodel.SupportRefunds,
	} {
		r, err := f.Resolve(name, getenv)
		require.NoError(t, err, name)
		require.True(t, r.Agent.CanHandOff(), name)
		require.Equal(t, "http://127.0.0.1:4321/v1", r.Model.BaseURL, name)
		require.Equal(t, model, r.Model.Name, name)
		require.Empty(t, r.Model.APIKey(getenv), "no key goes to the test double")
	}
	general, err := f.Resolve(demoHandoffAgent, getenv)
	require.NoError(t, err)
	require.Equal(t, []string{config.HandoffAny}, general.Agent.HandoffTargets())
	var names []string
	for _, p := range general.Registry {
		names = append(names, p.Name)
	}
	require.Equal(t, []string{"travel", "stocks", "general", "orders", "refunds", "supervisor", "concierge"}, names)
	orders, err := f.Resolve("orders", getenv)
	require.NoError(t, err)
	require.Equal(t, []string{"general", "refunds", config.HandoffHuman}, orders.Agent.HandoffTargets())
	refund, ok := func() (config.Tool, bool) {
		r, err := f.Resolve("refunds", getenv)
		require.NoError(t, err)
		return r.AgentTool("issue_refund")
	}()
	require.True(t, ok)
	require.Equal(t, config.EffectWrite, refund.Effect)

	person, err := f.Resolve(demoHandoffPerson, getenv)
	require.NoError(t, err)
	p, ok := person.Peer(demoHandoffPerson)
	require.True(t, ok)
	require.True(t, p.Human())
	require.Equal(t, []any{"resolution"}, person.Agent.OutputSchema["required"])
	require.True(t, json.Valid([]byte(demoHandoffOutput())))

	travel, err := f.Resolve("travel", getenv)
	require.NoError(t, err)
	require.Equal(t, "https://real.example/v1", travel.Model.BaseURL, "unstuck demo is as it was")
	require.False(t, travel.Agent.CanHandOff())
}

// The chain's scripts, played through the demo's own scripted model
// server with the real built-in tools: general hands over without a name;
// orders looks the order up and names general; refunds refunds the total
// the look-up found, read from the handoff context, and hands over.
func TestDemoHandoffScriptsPlayTheChain(t *testing.T) {
	model, err := startScriptedModel(io.Discard, nil)
	require.NoError(t, err)
	defer model.Close()
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = model.URL()
	c := openai.NewClientWithConfig(cfg)
	ask := func(name string, msgs []openai.ChatCompletionMessage) openai.ChatCompletionMessage {
		t.Helper()
		resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: name, Messages: msgs})
		require.NoError(t, err)
		return resp.Choices[0].Message
	}
	args := func(m openai.ChatCompletionMessage, name string) map[string]any {
		t.Helper()
		require.Len(t, m.ToolCalls, 1, m.Content)
		require.Equal(t, name, m.ToolCalls[0].Function.Name)
		var a map[string]any
		require.NoError(t, json.Unmarshal([]byte(m.ToolCalls[0].Function.Arguments), &a))
		return a
	}
	run := func(m openai.ChatCompletionMessage, key string) (openai.ChatCompletionMessage, string) {
		t.Helper()
		fn, ok := builtin.Lookup(m.ToolCalls[0].Function.Name)
		require.True(t, ok)
		out, err := fn(context.Background(), builtin.Call{IdempotencyKey: key, Args: json.RawMessage(m.ToolCalls[0].Function.Arguments)})
		require.NoError(t, err)
		b, err := json.Marshal(out)
		require.NoError(t, err)
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: m.ToolCalls[0].ID, Content: string(b)}, string(b)
	}
	task := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: demoHandoffTask + "\n\nInput: " + demoHandoffInput}
	brief := func(text string) openai.ChatCompletionMessage {
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "[unstuck] This task was handed over to you. " + text}
	}

	h := args(ask(scriptedmodel.SupportGeneral, []openai.ChatCompletionMessage{task}), "handoff")
	require.NotContains(t, h, "to", "general lets the run choose")
	require.Contains(t, h["summary"], "order 1234")

	convo := []openai.ChatCompletionMessage{task, brief("")}
	lookup := ask(scriptedmodel.SupportOrders, convo)
	require.Equal(t, "1234", args(lookup, "lookup_order")["order"])
	result, found := run(lookup, "k1")
	var order struct{ Total float64 }
	require.NoError(t, json.Unmarshal([]byte(found), &order))
	convo = append(convo, lookup, result)
	h = args(ask(scriptedmodel.SupportOrders, convo), "handoff")
	require.Equal(t, "general", h["to"], "orders tries to hand it back")
	require.Contains(t, h["suggested_next_action"], fmt.Sprintf("refund of %v USD", order.Total))

	// The handoff context carries the look-up in its tool records.
	convo = []openai.ChatCompletionMessage{task, brief(`The handoff context (JSON): {"tool_records":[{"tool":"lookup_order","output":` + found + `}]}`)}
	refund := ask(scriptedmodel.SupportRefunds, convo)
	require.Equal(t, order.Total, args(refund, "issue_refund")["amount"], "the order's total, from the context")
	result, _ = run(refund, "k2")
	convo = append(convo, refund, result)
	h = args(ask(scriptedmodel.SupportRefunds, convo), "handoff")
	require.NotContains(t, h, "to", "refunds lets the run choose among its handoffs: a person")
	require.Equal(t, "user_escalation", h["reason"])
	require.Regexp(t, `Refund RF-\d{6}`, h["summary"])
}

func TestDemoHandoffCommand(t *testing.T) {
	r := runCLI(t, noDial(t), "demo", "--help")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "unstuck demo handoff")

	r = runCLI(t, noDial(t), "demo", "handoff", "--help")
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, want := range []string{demoHandoffTask, "already in the handoff path", "awaiting_human", "unstuck reply --output", "AgentName", "--once", "--temporal"} {
		require.Contains(t, r.stdout, want)
	}
	for args, want := range map[string]string{
		"demo handof":        "`unstuck demo handoff` (handing a run on)",
		"demo handoff extra": "takes no arguments",
	} {
		r := runCLI(t, noDial(t), strings.Fields(args)...)
		require.Equal(t, exitUsage, r.code, args)
		require.Contains(t, r.stderr, want, args)
	}
	r = runCLI(t, noDial(t), "demo", "handoff", "--worker", "/does/not/exist", "--temporal", "/does/not/exist/either", "--data", t.TempDir())
	require.Equal(t, exitFailure, r.code)
	require.Contains(t, r.stderr, "not found")
}

func TestDemoHandoffNodeDetail(t *testing.T) {
	for _, tt := range []struct {
		node signals.Node
		want string
	}{
		{signals.Node{Kind: signals.KindHandoff, Status: signals.StatusPending, From: "general", Reason: "out_of_scope"},
			"general -> (choosing), reason out_of_scope"},
		{signals.Node{Kind: signals.KindHandoff, Status: signals.StatusCompleted, From: "orders", To: "refunds", Reason: "out_of_scope",
			Refused: []signals.HandoffRefusal{{Agent: "general", Why: "already in the handoff path"}, {Agent: "orders", Why: "it is the agent handing over"}}},
			"orders -> refunds, reason out_of_scope; refused general, orders"},
		{signals.Node{Kind: signals.KindHandoff, Status: signals.StatusFailed, From: "refunds", Error: "no agent can take the run"},
			"error: no agent can take the run"},
	} {
		require.Equal(t, tt.want, nodeDetail(tt.node))
	}
}

// runDemoHandoff against a fake run that hands itself on as the workflow
// does, one handoff per trace query, visibility listing it under the agent
// it is with, until it waits for the person; the person's reply completes
// it. The demo prints each handoff with its refusals and listing, replies
// as the person with an output, and checks the handoff path.
func TestDemoHandoffScenarioAgainstAFakeRun(t *testing.T) {
	for _, tt := range []struct {
		name    string
		path    []string
		wantErr string
	}{
		{name: "the chain as it should go", path: demoHandoffPath},
		{name: "a result with another path is an error", path: []string{"general", "supervisor"}, wantErr: "the handoff path is [general supervisor]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := &fakeHandoffRun{t: t, path: tt.path, done: make(chan struct{})}
			var out bytes.Buffer
			o := demoOptions{temporal: "bin/temporal", uiPort: 8233, dial: run.dial}
			err := runDemoHandoff(context.Background(), &out, o, run, &child.Process{}, "127.0.0.1:7233")
			text := out.String()
			require.Len(t, run.replies, 1, text)
			require.JSONEq(t, demoHandoffOutput(), string(run.replies[0].Output))
			require.Equal(t, demoHandoffText, run.replies[0].Text)
			require.Equal(t, demoHandoffBy, run.replies[0].By)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err, text)
			for _, want := range []string{
				"⇒ handoff general -> orders (reason: out_of_scope; asked by: the model (handoff tool))",
				"summary: The customer asks where order 1234 is",
				"refused: travel: no capability match",
				"listed under: AgentName=orders (the run continued as new as orders)",
				"⇒ handoff orders -> refunds (reason: out_of_scope",
				"general: already in the handoff path general -> orders",
				"listed under: AgentName=refunds",
				"⇒ handoff refunds -> supervisor (reason: user_escalation",
				"listed under: AgentName=supervisor",
				"The run waits for a person: agent supervisor (kind human), phase awaiting_human",
				"replying as the person: " + demoHandoffText,
				"(the demo speaks for agent supervisor, of kind human), with the output {\"resolution\"",
				"$ unstuck reply demo-handoff-",
				"reply accepted by demo-handoff-",
				"handoff_path: general -> orders -> refunds -> supervisor",
				"Listed under AgentName=supervisor.",
				"--name reply \\\n    --input '{\"output\": {\"resolution\":",
			} {
				require.Contains(t, text, want)
			}
			// Each handoff is printed once, as it settles, in order.
			require.Equal(t, 3, strings.Count(text, "⇒ handoff "))
			require.Less(t, strings.Index(text, "-> orders (reason"), strings.Index(text, "-> refunds (reason"))
			require.Less(t, strings.Index(text, "-> supervisor (reason"), strings.Index(text, "n5   human"), "each handoff right after its node")
		})
	}
}

// fakeHandoffRun is a client.Client playing the chain: any method it does
// not define panics (the nil embedded interface).
type fakeHandoffRun struct {
	client.Client
	t    *testing.T
	path []string // the result's handoff path

	mu       sync.Mutex
	handoffs int // handoffs the next trace query shows (one more per query, up to 3)
	served   int // handoffs the last trace query showed: where the run is
	replies  []signals.ReplyRequest
	done     chan struct{}
}

func (f *fakeHandoffRun) dial(context.Context, client.Options) (client.Client, error) { return f, nil }

func (f *fakeHandoffRun) Close() {}

func (f *fakeHandoffRun) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	require.Equal(f.t, workflows.WorkflowName, wf)
	in := args[0].(workflows.AgentInput)
	require.Equal(f.t, demoHandoffAgent, in.Agent)
	require.Equal(f.t, demoHandoffTask, in.Task)
	require.JSONEq(f.t, demoHandoffInput, string(in.Input))
	return fakeHandoffWorkflowRun{f: f, id: o.ID}, nil
}

func (f *fakeHandoffRun) QueryWorkflow(_ context.Context, _, runID, name string, _ ...any) (converter.EncodedValue, error) {
	require.Empty(f.t, runID, "the latest run: a handoff continues the run as new")
	f.mu.Lock()
	defer f.mu.Unlock()
	switch name {
	case signals.QueryStatus:
		st := signals.Status{Agent: demoHandoffPath[f.served], Phase: signals.PhaseRunning, HandoffPath: demoHandoffPath[:f.served+1]}
		if f.served == 3 {
			st.Phase = signals.PhaseAwaitingHuman
		}
		return mustJSON(f.t, st), nil
	case signals.QueryTrace:
		tr := f.trace()
		f.served, f.handoffs = f.handoffs, min(f.handoffs+1, 3)
		return mustJSON(f.t, tr), nil
	}
	return nil, fmt.Errorf("no query %s", name)
}

// trace is the run's trace with f.handoffs handoffs, as the workflow keeps it.
func (f *fakeHandoffRun) trace() signals.Trace {
	hops := []signals.Node{
		{Kind: signals.KindHandoff, From: "general", To: "orders", Reason: "out_of_scope",
			Args:    json.RawMessage(`{"trigger":"tool","reason":"out_of_scope","summary":"The customer asks where order 1234 is and wants a refund for it.","suggested_next_action":"look up order 1234 status"}`),
			Refused: []signals.HandoffRefusal{{Agent: "travel", Why: "no capability match"}, {Agent: "general", Why: "it is the agent handing over"}}},
		{Kind: signals.KindHandoff, From: "orders", To: "refunds", Reason: "out_of_scope",
			Args:    json.RawMessage(`{"trigger":"tool","to":"general","reason":"out_of_scope","summary":"Order 1234 was delivered damaged."}`),
			Refused: []signals.HandoffRefusal{{Agent: "general", Why: "already in the handoff path general -> orders"}}},
		{Kind: signals.KindHandoff, From: "refunds", To: "supervisor", Reason: "user_escalation",
			Args: json.RawMessage(`{"trigger":"tool","reason":"user_escalation","summary":"Refund issued; a person must sign it off."}`)},
	}
	tr := signals.Trace{Generation: f.handoffs, Nodes: []signals.Node{{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted, Agent: "general"}}}
	for i := 0; i < f.handoffs; i++ {
		n := hops[i]
		n.ID, n.Status, n.Agent, n.Output = fmt.Sprintf("n%d", i+2), signals.StatusCompleted, n.From, json.RawMessage(`{"version":1}`)
		tr.Nodes = append(tr.Nodes, n)
	}
	if f.handoffs == 3 {
		status := signals.StatusPending
		if len(f.replies) > 0 {
			status = signals.StatusCompleted
		}
		tr.Nodes = append(tr.Nodes, signals.Node{ID: "n5", Kind: signals.KindHuman, Status: status, Agent: demoHandoffPerson})
	}
	return tr
}

// ListWorkflow lists the run (and the runs it continued as new from)
// under the agent the trace last showed it handed to.
func (f *fakeHandoffRun) ListWorkflow(_ context.Context, req *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	require.Contains(f.t, req.GetQuery(), "WorkflowId = 'demo-handoff-")
	f.mu.Lock()
	defer f.mu.Unlock()
	shown := f.served
	attr := func(agent string) *commonpb.SearchAttributes {
		p, err := converter.GetDefaultDataConverter().ToPayload(agent)
		require.NoError(f.t, err)
		return &commonpb.SearchAttributes{IndexedFields: map[string]*commonpb.Payload{signals.AttrAgentName: p}}
	}
	resp := &workflowservice.ListWorkflowExecutionsResponse{}
	for i := shown; i >= 0; i-- {
		status := enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
		if i < shown {
			status = enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW
		}
		resp.Executions = append(resp.Executions, &workflowpb.WorkflowExecutionInfo{Status: status, SearchAttributes: attr(demoHandoffPath[i])})
	}
	return resp, nil
}

func (f *fakeHandoffRun) UpdateWorkflow(_ context.Context, o client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	require.Empty(f.t, o.RunID, "the latest run")
	require.Equal(f.t, signals.Reply, o.UpdateName)
	f.mu.Lock()
	defer f.mu.Unlock()
	req := o.Args[0].(signals.ReplyRequest)
	f.replies = append(f.replies, req)
	if f.served != 3 || len(req.Output) == 0 {
		return fakeUpdate{err: fmt.Errorf("reply: nothing waits for a reply")}, nil
	}
	close(f.done)
	return fakeUpdate{answer: signals.ReplyResult{NodeID: "n5"}}, nil
}

type fakeHandoffWorkflowRun struct {
	client.WorkflowRun
	f  *fakeHandoffRun
	id string
}

func (r fakeHandoffWorkflowRun) GetID() string    { return r.id }
func (r fakeHandoffWorkflowRun) GetRunID() string { return "run-0" }

// Get follows the chain to its end, as the SDK's does across continue-as-new.
func (r fakeHandoffWorkflowRun) Get(ctx context.Context, ptr any) error {
	select {
	case <-r.f.done:
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Minute):
		return fmt.Errorf("the fake run was never replied to")
	}
	b, err := json.Marshal(workflows.AgentResult{Status: "completed", Output: json.RawMessage(demoHandoffOutput()), Agent: demoHandoffPerson,
		Steps: 5, Generation: 3, HandoffPath: r.f.path})
	if err != nil {
		return err
	}
	return json.Unmarshal(b, ptr)
}
