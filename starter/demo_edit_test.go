package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
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

// What `unstuck demo edit` is made of, without a server: its config, its
// script (through the demo's own scripted model server and the real
// built-in tools), the messages it sends, its command, and the scenario
// itself against a fake run.

func demoFile(t *testing.T) *config.File {
	t.Helper()
	f, err := config.Parse("demo_agents.yaml", demoConfig, config.Options{
		KnownBuiltin: builtin.Known, SlowBuiltin: builtin.Slow,
		Getenv: func(string) (string, bool) { return "", false },
	})
	require.NoError(t, err)
	return f
}

// demoFileWithARealModel is the demo config loaded with a real model
// set in OPENAI_BASE_URL and OPENAI_API_KEY, and the scripted model's
// endpoint the demo gives the worker (127.0.0.1:4321), with its getenv.
func demoFileWithARealModel(t *testing.T) (*config.File, func(string) (string, bool)) {
	env := map[string]string{
		"UNSTUCK_DEMO_MODEL_URL": "http://127.0.0.1:4321/v1",
		"OPENAI_BASE_URL":        "https://real.example/v1",
		"OPENAI_API_KEY":         "sk-real",
	}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	f, err := config.Parse("demo_agents.yaml", demoConfig, config.Options{KnownBuiltin: builtin.Known, SlowBuiltin: builtin.Slow, Getenv: getenv})
	require.NoError(t, err)
	return f, getenv
}

// The stock agent's config loads beside the travel agent's; its write
// waits for approval; it talks to the scripted model (the endpoint the demo
// gives the worker) whatever OPENAI_BASE_URL and OPENAI_API_KEY say, while
// the travel agent still follows them.
func TestDemoEditConfig(t *testing.T) {
	f, getenv := demoFileWithARealModel(t)

	stocks, err := f.Resolve(demoEditAgent, getenv)
	require.NoError(t, err)
	require.Equal(t, []string{"get_quote", "write_report"}, stocks.Agent.Tools)
	quote, ok := stocks.AgentTool("get_quote")
	require.True(t, ok)
	require.Equal(t, config.EffectRead, quote.Effect)
	require.Equal(t, config.ApprovalNever, quote.Approval)
	write, ok := stocks.AgentTool("write_report")
	require.True(t, ok)
	require.Equal(t, config.EffectWrite, write.Effect)
	require.Equal(t, config.ApprovalAlways, write.Approval)
	require.Equal(t, "http://127.0.0.1:4321/v1", stocks.Model.BaseURL, "the scripted model the demo started")
	require.Equal(t, scriptedmodel.StockDemo, stocks.Model.Name)
	require.Empty(t, stocks.Model.APIKey(getenv), "no key goes to the test double")

	travel, err := f.Resolve("travel", getenv)
	require.NoError(t, err)
	require.Equal(t, "https://real.example/v1", travel.Model.BaseURL, "unstuck demo is as it was")
	require.Equal(t, "sk-real", travel.Model.APIKey(getenv))
	require.Equal(t, scriptedmodel.TravelDemo, demoFile(t).Model.Name)
}

// The scenario's script, played through the demo's own scripted model
// server with the real built-in tools, on the conversation the engine
// sends: SELL as the model thought it; after the demo's edit of the
// thought, BUY, down to the final answer.
func TestDemoEditScriptFollowsTheEditedThought(t *testing.T) {
	model, err := startScriptedModel(io.Discard, nil)
	require.NoError(t, err)
	defer model.Close()
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = model.URL()
	c := openai.NewClientWithConfig(cfg)
	ask := func(msgs []openai.ChatCompletionMessage) openai.ChatCompletionMessage {
		t.Helper()
		resp, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: scriptedmodel.StockDemo, Messages: msgs})
		require.NoError(t, err)
		return resp.Choices[0].Message
	}
	tool := func(m openai.ChatCompletionMessage, key string) openai.ChatCompletionMessage {
		t.Helper()
		require.Len(t, m.ToolCalls, 1)
		fn, ok := builtin.Lookup(m.ToolCalls[0].Function.Name)
		require.True(t, ok, m.ToolCalls[0].Function.Name)
		out, err := fn(context.Background(), builtin.Call{IdempotencyKey: key, Args: json.RawMessage(m.ToolCalls[0].Function.Arguments)})
		require.NoError(t, err)
		b, err := json.Marshal(out)
		require.NoError(t, err)
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: m.ToolCalls[0].ID, Content: string(b)}
	}
	args := func(m openai.ChatCompletionMessage, name string) map[string]any {
		t.Helper()
		require.Len(t, m.ToolCalls, 1)
		require.Equal(t, name, m.ToolCalls[0].Function.Name)
		var a map[string]any
		require.NoError(t, json.Unmarshal([]byte(m.ToolCalls[0].Function.Arguments), &a))
		return a
	}

	convo := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You are a stock analyst."},
		{Role: openai.ChatMessageRoleUser, Content: demoEditTask},
	}
	thought := ask(convo)
	require.Equal(t, scriptedmodel.StockThought, thought.Content)
	require.Equal(t, "SELL", scriptedmodel.Recommendation(thought.Content))
	args(thought, "get_quote")
	convo = append(convo, thought, tool(thought, "k1"))
	require.Contains(t, convo[3].Content, `"trend_5d":"up"`, "the quote contradicts the thought")
	require.Equal(t, "SELL", args(ask(convo), "write_report")["recommendation"], "before the edit")

	// The edit: the same request, its thought replaced, its call kept and
	// run again; the conversation goes to the model whole.
	convo[2].Content = demoEditThought
	convo = convo[:3]
	convo = append(convo, tool(convo[2], "k1"))
	write := ask(convo)
	require.Equal(t, demoEditWant, args(write, "write_report")["recommendation"], "after the edit")
	convo = append(convo, write, tool(write, "k2"))
	final := args(ask(convo), "final_output")
	require.Equal(t, demoEditWant, final["recommendation"])
	require.Regexp(t, `^RPT-\d{6}$`, final["report_id"])
	require.Contains(t, final["summary"], demoEditThought)
	require.Equal(t, demoEditWant, recommendationOf(json.RawMessage(mustJSON(t, final).raw)))
}

// The edit the demo sends is the one `unstuck edit --output-text` sends,
// and the temporal line it prints sends the same payload.
func TestDemoEditMessages(t *testing.T) {
	edit := editFlags{node: "n2", outputText: demoEditThought, outputTextSet: true, by: demoEditBy, reason: demoEditReason}
	req, err := edit.request()
	require.NoError(t, err)
	require.NoError(t, req.Validate())
	require.Equal(t, "n2", req.NodeID)
	require.JSONEq(t, fmt.Sprintf("%q", demoEditThought), string(req.Output))

	line := temporalUpdateLine("bin/temporal", "127.0.0.1:7233", "demo-edit-1", signals.Edit, req)
	require.True(t, strings.HasPrefix(line, "  bin/temporal workflow update execute --address 127.0.0.1:7233 --workflow-id demo-edit-1 --name edit \\\n    --input '"), line)
	input := payloadJSON(req)
	require.Equal(t, `{"node_id": "n2", "output": "`+demoEditThought+`", "by": "demo", "reason": "`+demoEditReason+`"}`, input)
	var back signals.EditRequest
	require.NoError(t, json.Unmarshal([]byte(input), &back))
	require.Equal(t, req, back)
	require.Equal(t, `{"call_id": "n9", "decision": "approve", "by": "demo"}`,
		payloadJSON(signals.ApproveRequest{CallID: "n9", Decision: "approve", Audit: signals.Audit{By: "demo"}}))

	// What the shell gets back is the payload, quotes and all.
	for _, s := range []string{input, `it's "quoted"`, ""} {
		out, err := exec.Command("sh", "-c", "printf %s "+shellQuote(s)).Output()
		require.NoError(t, err)
		require.Equal(t, s, string(out))
	}
}

func TestDemoEditCommand(t *testing.T) {
	r := runCLI(t, noDial(t), "demo", "--help")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "unstuck demo edit")
	require.Contains(t, r.stdout, scriptedmodel.StockThought)

	r = runCLI(t, noDial(t), "demo", "edit", "--help")
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, want := range []string{demoEditTask, scriptedmodel.StockThought, demoEditThought, "approval: always", "continues as new", "--once", "--temporal"} {
		require.Contains(t, r.stdout, want)
	}

	for args, want := range map[string]string{
		"demo eddit":      `unknown scenario "eddit"`,
		"demo edit extra": "takes no arguments",
	} {
		r := runCLI(t, noDial(t), strings.Fields(args)...)
		require.Equal(t, exitUsage, r.code, args)
		require.Contains(t, r.stderr, want, args)
	}

	// The flags are the demo's, for the scenario too: a missing binary is
	// reported before anything starts.
	r = runCLI(t, noDial(t), "demo", "edit", "--temporal", "/does/not/exist", "--data", t.TempDir())
	require.Equal(t, exitFailure, r.code)
	require.Contains(t, r.stderr, "--temporal /does/not/exist: not found")
}

// The edit scenario always runs on the scripted model, and says so.
func TestDemoEditRunsOnTheScriptedModel(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "https://real.example/v1")
	var out bytes.Buffer
	url, stop, err := startDemoModel(&out, true, nil)
	require.NoError(t, err)
	defer stop()
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)
	require.Contains(t, out.String(), "SCRIPTED model server (a test double")
	require.Contains(t, out.String(), "even though OPENAI_BASE_URL is set")

	url, stop, err = startDemoModel(io.Discard, false, nil)
	require.NoError(t, err)
	stop()
	require.Equal(t, "https://real.example/v1", url, "unstuck demo still follows OPENAI_BASE_URL")
}

func TestDemoNodeDetail(t *testing.T) {
	for _, tt := range []struct {
		node signals.Node
		want string
	}{
		{signals.Node{Kind: signals.KindRequest, Output: json.RawMessage(`{"content":"down, SELL","tool_calls":[{"name":"get_quote","args":"{\"symbol\":\"AAPL\"}"}]}`)},
			`"down, SELL"; the model calls get_quote{"symbol":"AAPL"}`},
		{signals.Node{Kind: signals.KindRequest, Output: json.RawMessage(`{"tool_calls":[{"name":"search_flights","args":"{}"}]}`)},
			`the model calls search_flights{}`},
		{signals.Node{Kind: signals.KindCall, Status: signals.StatusAwaitingApproval, Args: json.RawMessage(`{"x":1}`)}, `{"x":1}`},
		{signals.Node{Kind: signals.KindCall, Args: json.RawMessage(`{"x":1}`), Output: json.RawMessage(`{"ok":true}`), ReusedFrom: "n5"},
			`answered from the effect ledger (the result of n5): {"x":1} → {"ok":true}`},
		{signals.Node{Kind: signals.KindEdit, Parents: []string{"n2"}, By: "demo",
			Before: json.RawMessage(`{"content":"SELL","tool_calls":[]}`), After: json.RawMessage(`{"content":"BUY"}`),
			Output: json.RawMessage(`{"invalidated":["n3","n4"]}`)},
			`n2 by demo: "SELL" → "BUY"; invalidated n3, n4`},
		{signals.Node{Kind: signals.KindEdit, Parents: []string{"n3"}, Before: json.RawMessage(`{"v":1}`), After: json.RawMessage(`{"v":2}`),
			Output: json.RawMessage(`{"invalidated":[]}`)},
			`n3 by -: {"v":1} → {"v":2}`},
	} {
		require.Equal(t, tt.want, nodeDetail(tt.node))
	}
}

// runDemoEdit against a fake run that behaves as the workflow does: it
// waits for approval, takes the edit of the thought and goes on as
// generation 1, takes the approval and completes. The demo finds the
// thought, edits it, approves the right call, and checks the answer.
func TestDemoEditScenarioAgainstAFakeRun(t *testing.T) {
	for _, tt := range []struct {
		name, answer, wantErr string
	}{
		{name: "the answer follows the edit", answer: "BUY"},
		{name: "an answer that does not is an error", answer: "SELL", wantErr: `the final answer recommends "SELL", not BUY`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := newFakeStockRun(t, tt.answer)
			var out bytes.Buffer
			o := demoOptions{temporal: "bin/temporal", uiPort: 8233, dial: run.dial}
			err := runDemoEdit(context.Background(), &out, o, run, &child.Process{}, "127.0.0.1:7233")
			text := out.String()
			require.Len(t, run.edits, 1, text)
			require.Equal(t, "n2", run.edits[0].NodeID)
			require.JSONEq(t, fmt.Sprintf("%q", demoEditThought), string(run.edits[0].Output))
			require.Equal(t, signals.Audit{By: demoEditBy, Reason: demoEditReason}, run.edits[0].Audit)
			require.Len(t, run.approvals, 1)
			require.Equal(t, "n8", run.approvals[0].CallID, "the call of the new generation")
			require.Equal(t, signals.DecisionApprove, run.approvals[0].Decision)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err, text)
			for _, want := range []string{
				`The thought of n2 is wrong: "` + scriptedmodel.StockThought + `"`,
				"closes 128 → 129.28 → 130.57 → 131.88 → 133.2, +4.06% over 5 sessions",
				"node n2 edited (edit node n6)",
				"invalidated: n4, n5",
				"as generation 1",
				"n4   request                invalidated",
				"n6   edit ",
				"n8 waits for approval to write",
				"a new run: run-0 continued as new as run-1, generation 1",
				"call n8 settled (approve)",
				"The final answer follows the edit: BUY",
				"--name edit \\\n    --input '{\"node_id\": \"n2\", \"output\": ",
				"--name approve \\\n    --input '{\"call_id\": \"n8\", \"decision\": \"approve\", \"by\": \"demo\"",
			} {
				require.Contains(t, text, want)
			}
		})
	}
}

// fakeStockRun is a client.Client playing the stock run: any method it
// does not define panics (the nil embedded interface).
type fakeStockRun struct {
	client.Client
	t      *testing.T
	answer string

	mu        sync.Mutex
	stage     int // 0 waits for n5; 1 (after the edit) for n8; 2 done
	edits     []signals.EditRequest
	approvals []signals.ApproveRequest
	done      chan struct{}
}

func newFakeStockRun(t *testing.T, answer string) *fakeStockRun {
	return &fakeStockRun{t: t, answer: answer, done: make(chan struct{})}
}

// DescribeWorkflowExecution names the latest run: run-1 once the edit has
// continued run-0 as new.
func (f *fakeStockRun) DescribeWorkflowExecution(_ context.Context, id, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	require.Empty(f.t, runID)
	f.mu.Lock()
	defer f.mu.Unlock()
	latest := fmt.Sprintf("run-%d", min(f.stage, 1))
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{
		Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: latest},
	}}, nil
}

func (f *fakeStockRun) dial(context.Context, client.Options) (client.Client, error) { return f, nil }

func (f *fakeStockRun) Close() {}

func (f *fakeStockRun) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	require.Equal(f.t, workflows.WorkflowName, wf)
	require.Equal(f.t, workflows.AgentInput{Agent: demoEditAgent, Task: demoEditTask}, args[0])
	return fakeWorkflowRun{f: f, id: o.ID}, nil
}

func (f *fakeStockRun) QueryWorkflow(_ context.Context, _, runID, name string, _ ...any) (converter.EncodedValue, error) {
	require.Empty(f.t, runID, "the latest run: an edit continues the run as new")
	f.mu.Lock()
	defer f.mu.Unlock()
	switch name {
	case signals.QueryStatus:
		st := signals.Status{Agent: demoEditAgent, Generation: min(f.stage, 1)}
		switch f.stage {
		case 0:
			st.PendingApprovals = []signals.PendingApproval{{CallID: "n5", Tool: "write_report", Args: json.RawMessage(`{"recommendation":"SELL"}`)}}
		case 1:
			st.PendingApprovals = []signals.PendingApproval{{CallID: "n8", Tool: "write_report", Args: json.RawMessage(`{"recommendation":"BUY"}`)}}
		}
		return mustJSON(f.t, st), nil
	case signals.QueryTrace:
		return mustJSON(f.t, f.trace()), nil
	}
	return nil, fmt.Errorf("no query %s", name)
}

// trace is the run's trace at its stage, as the workflow keeps it.
func (f *fakeStockRun) trace() signals.Trace {
	node := func(id string, kind signals.NodeKind, status signals.NodeStatus, tool, args, output string) signals.Node {
		n := signals.Node{ID: id, Kind: kind, Status: status, Tool: tool, Agent: demoEditAgent}
		if args != "" {
			n.Args = json.RawMessage(args)
		}
		if output != "" {
			n.Output = json.RawMessage(output)
		}
		return n
	}
	quote := `{"symbol":"AAPL","closes_5d":[128,129.28,130.57,131.88,133.2],"change_5d_pct":4.06,"data":"made-up demo data"}`
	thought := scriptedmodel.StockThought
	if f.stage > 0 {
		thought = demoEditThought
	}
	tr := signals.Trace{Generation: min(f.stage, 1), Nodes: []signals.Node{
		node("n1", signals.KindTask, signals.StatusCompleted, "", "", ""),
		node("n2", signals.KindRequest, signals.StatusCompleted, "", "", string(mustJSON(f.t, map[string]any{
			"content": thought, "tool_calls": []map[string]string{{"id": "call_1_0", "name": "get_quote", "args": `{"symbol":"AAPL"}`}},
		}).raw)),
		node("n3", signals.KindCall, signals.StatusCompleted, "get_quote", `{"symbol":"AAPL"}`, quote),
		node("n4", signals.KindRequest, signals.StatusCompleted, "", "", `{"tool_calls":[{"name":"write_report","args":"{}"}]}`),
		node("n5", signals.KindCall, signals.StatusAwaitingApproval, "write_report", `{"recommendation":"SELL"}`, ""),
	}}
	if f.stage == 0 {
		return tr
	}
	// As on the real server (testsuite's TestDemoEditRunsEndToEnd): the
	// edit invalidates what followed the thought but the quote, which the
	// edited request still reads; the quote is not fetched again.
	for i := 3; i < 5; i++ {
		tr.Nodes[i].Status = signals.StatusInvalidated
	}
	waiting := signals.StatusAwaitingApproval
	if f.stage > 1 {
		waiting = signals.StatusCompleted
	}
	tr.Nodes = append(tr.Nodes,
		signals.Node{ID: "n6", Kind: signals.KindEdit, Status: signals.StatusCompleted, Parents: []string{"n2"}, By: demoEditBy,
			Before: json.RawMessage(fmt.Sprintf(`{"content":%q}`, scriptedmodel.StockThought)),
			After:  json.RawMessage(fmt.Sprintf(`{"content":%q}`, demoEditThought)),
			Output: json.RawMessage(`{"invalidated":["n4","n5"]}`)},
		node("n7", signals.KindRequest, signals.StatusCompleted, "", "", `{"tool_calls":[{"name":"write_report","args":"{}"}]}`),
		node("n8", signals.KindCall, waiting, "write_report", `{"recommendation":"BUY"}`, ""),
	)
	return tr
}

func (f *fakeStockRun) UpdateWorkflow(_ context.Context, o client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	require.Empty(f.t, o.RunID, "the latest run")
	f.mu.Lock()
	defer f.mu.Unlock()
	switch o.UpdateName {
	case signals.Edit:
		req := o.Args[0].(signals.EditRequest)
		f.edits = append(f.edits, req)
		if f.stage != 0 || req.NodeID != "n2" {
			return fakeUpdate{err: fmt.Errorf("edit: %s cannot be edited now", req.NodeID)}, nil
		}
		f.stage = 1
		return fakeUpdate{answer: signals.EditResult{NodeID: "n6", Edited: "n2", Invalidated: []string{"n4", "n5"}, Generation: 1}}, nil
	case signals.Approve:
		req := o.Args[0].(signals.ApproveRequest)
		f.approvals = append(f.approvals, req)
		if f.stage != 1 || req.CallID != "n8" {
			return fakeUpdate{err: fmt.Errorf("approve: %s does not wait for approval", req.CallID)}, nil
		}
		f.stage = 2
		close(f.done)
		return fakeUpdate{answer: signals.ApproveResult{CallID: req.CallID, Decision: req.Decision}}, nil
	}
	return nil, fmt.Errorf("no update %s", o.UpdateName)
}

type fakeUpdate struct {
	client.WorkflowUpdateHandle
	answer any
	err    error
}

func (u fakeUpdate) Get(_ context.Context, ptr any) error {
	if u.err != nil {
		return u.err
	}
	b, err := json.Marshal(u.answer)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, ptr)
}

type fakeWorkflowRun struct {
	client.WorkflowRun
	f  *fakeStockRun
	id string
}

func (r fakeWorkflowRun) GetID() string    { return r.id }
func (r fakeWorkflowRun) GetRunID() string { return "run-0" }

// Get follows the run to its end, as the SDK's does across continue-as-new.
func (r fakeWorkflowRun) Get(ctx context.Context, ptr any) error {
	select {
	case <-r.f.done:
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Minute):
		return fmt.Errorf("the fake run was never approved")
	}
	out := json.RawMessage(fmt.Sprintf(`{"symbol":"AAPL","recommendation":%q,"report_id":"RPT-123456"}`, r.f.answer))
	b, err := json.Marshal(workflows.AgentResult{Status: "completed", Output: out, Agent: demoEditAgent, Steps: 3, Generation: 1})
	if err != nil {
		return err
	}
	return json.Unmarshal(b, ptr)
}
