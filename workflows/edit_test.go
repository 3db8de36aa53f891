package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/edit"
)

// Edits with the model scripted (a test double) and the tools mocked: the
// edited node changes, only what depended on it is invalidated, the run
// continues as new, and the next generation runs again only that.

// editSpec has read tools a, b, c, a write tool w, a write tool ask
// (reexecute: ask) and hold (approval: always), which keeps a run alive
// while a test edits it.
func editSpec() *config.Resolved {
	obj := map[string]any{"type": "object"}
	f := &config.File{
		Model: config.Model{BaseURL: "http://127.0.0.1:1/v1", Name: "scripted:test"},
		Tools: []config.Tool{
			{Name: "a", Builtin: "echo", Parameters: obj},
			{Name: "b", Builtin: "echo", Parameters: obj},
			{Name: "c", Builtin: "echo", Parameters: obj},
			{Name: "w", Builtin: "echo", Parameters: obj, Effect: config.EffectWrite},
			{Name: "ask", Builtin: "echo", Parameters: obj, Effect: config.EffectWrite, Reexecute: config.ReexecuteAsk},
			{Name: "hold", Builtin: "echo", Parameters: obj, Approval: config.ApprovalAlways},
			{Name: "typed", Builtin: "echo", Parameters: map[string]any{
				"type": "object", "required": []any{"n"},
				"properties": map[string]any{"n": map[string]any{"type": "integer"}},
			}},
		},
		Agents: []config.Agent{{Name: "agent", Instructions: "x", Tools: []string{"a", "b", "c", "w", "ask", "hold", "typed"}}},
	}
	r := mustResolve(f, "agent")
	r.Agent.Policies.HumanTimeout = config.Duration(time.Hour)
	return r
}

func (h *harness) edit(after time.Duration, req signals.EditRequest, got *updateResult) {
	h.env.RegisterDelayedCallback(func() {
		h.env.UpdateWorkflow(signals.Edit, "edit-"+req.NodeID+"-"+after.String(), &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { got.rejected = err },
			OnAccept:   func() {},
			OnComplete: func(v any, err error) { got.result, got.err = v, err },
		}, req)
	}, after)
}

// continuedInput is the input a run continued as new with.
func continuedInput(t *testing.T, h *harness) AgentInput {
	t.Helper()
	return continuedFrom(t, h.env)
}

// continuedFrom is the input a run of env continued as new with.
func continuedFrom(t *testing.T, env *testsuite.TestWorkflowEnvironment) AgentInput {
	t.Helper()
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	var next AgentInput
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	if len(next.ContinuedGzip) > 0 {
		run, err := uncarryRun(next.ContinuedGzip)
		require.NoError(t, err)
		next.Continued, next.ContinuedGzip = run, nil
	}
	require.NotNil(t, next.Continued)
	return next
}

func statuses(run *Run) map[string]signals.NodeStatus {
	out := map[string]signals.NodeStatus{}
	for _, n := range run.Nodes {
		out[n.ID] = n.Status
	}
	return out
}

func toolNamesOf(reqs []activities.ToolRequest) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Tool.Name)
	}
	return out
}

// Step 1: a writes state.x, b reads it, c is independent (n3, n4, n5).
// Step 2 (n6): hold waits for approval (n7), so the run is alive to edit.
func lineageReplies() []activities.ModelReply {
	return []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{
			call("ka", "a", `{"v": "old", "_outputPath": "†state.x"}`),
			call("kb", "b", `{"got": "†state.x"}`),
			call("kc", "c", `{"q": 1}`),
		}},
		{ToolCalls: []activities.ToolCall{call("kh", "hold", `{}`)}},
	}
}

func TestEditOfACallsOutputRunsAgainOnlyWhatReadIt(t *testing.T) {
	h := newHarness(t, editSpec(), lineageReplies(), echoTool)
	var got updateResult
	h.edit(time.Minute, signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"v": "new"}`),
		Audit: signals.Audit{By: "alice", Reason: "the look-up was wrong"}}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, got.rejected)
	require.NoError(t, got.err)
	res := got.result.(signals.EditResult)
	require.Equal(t, "n3", res.Edited)
	require.Equal(t, 1, res.Generation)
	require.Equal(t, []string{"n4", "n6", "n7"}, res.Invalidated, "b read the edited output; c did not; step 2 followed")

	next := continuedInput(t, h)
	run := next.Continued
	st := statuses(run)
	require.Equal(t, signals.StatusCompleted, st["n3"])
	require.Equal(t, signals.StatusCompleted, st["n5"], "c did not read a's output: kept")
	require.Equal(t, signals.StatusInvalidated, st["n4"])
	require.Equal(t, signals.StatusInvalidated, st["n6"])
	require.JSONEq(t, `{"v":"new"}`, string(mustJSON(run.State["x"])))
	require.Equal(t, 1, run.Step, "the step counter is back at the edited step")
	edit := run.node(res.NodeID)
	require.Equal(t, signals.KindEdit, edit.Kind)
	require.Equal(t, "alice", edit.By)
	require.Equal(t, "the look-up was wrong", edit.Reason)
	require.JSONEq(t, `{"v":"old"}`, string(edit.Before))
	require.JSONEq(t, `{"v":"new"}`, string(edit.After))

	// The next generation runs b again with the edited value, not a or c,
	// then asks the model with the whole, edited conversation.
	h2 := newHarness(t, editSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
	out, err := h2.run(next)
	require.NoError(t, err)
	require.Equal(t, 1, out.Generation)
	require.Equal(t, []string{"b"}, toolNamesOf(h2.toolReqs))
	require.JSONEq(t, `{"got":{"v":"new"}}`, string(h2.toolReqs[0].Args))
	req := h2.requests[0]
	require.Equal(t, 0, req.Base, "the conversation changed before its end: sent whole")
	var sawNew, sawHold bool
	for _, m := range req.Delta {
		sawNew = sawNew || (m.Role == "tool" && m.ToolCallID == "ka" && m.Content == `{"v":"new"}`)
		for _, tc := range m.ToolCalls {
			sawHold = sawHold || tc.Name == "hold"
		}
	}
	require.True(t, sawNew, "the model reads the edited output: %+v", req.Delta)
	require.False(t, sawHold, "the invalidated step is not in the conversation")
}

func TestEditOfAWaitingCallChangesItsArgumentsInPlace(t *testing.T) {
	h := newHarness(t, editSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("kh", "hold", `{"seat": "12A"}`)}},
		{Content: "done"},
	}, echoTool)
	var edited, approved updateResult
	h.edit(time.Minute, signals.EditRequest{NodeID: "n3", Args: json.RawMessage(`{"seat": "14C"}`), Audit: signals.Audit{By: "bob"}}, &edited)
	h.approve(2*time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "approve"}, &approved)
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, 0, res.Generation, "no continue-as-new: nothing had run yet")
	require.NoError(t, edited.rejected)
	require.NoError(t, approved.rejected)
	require.Len(t, h.toolReqs, 1)
	require.JSONEq(t, `{"seat":"14C"}`, string(h.toolReqs[0].Args))
	require.Contains(t, h.requests[1].Delta[0].Content, `"changed_by_a_person"`, "the model hears a person changed the call")
	e := nodesByKind(h.trace(), signals.KindEdit)
	require.Len(t, e, 1)
	require.Equal(t, "bob", e[0].By)
	require.JSONEq(t, `{"args":{"seat":"12A"}}`, string(e[0].Before))
}

// The look-up / write / confirm run (n3 the look-up, n5 the write, n7
// the confirmation waiting for approval).
func lookupWriteConfirm() []activities.ModelReply {
	return []activities.ModelReply{
		{Content: "look up", ToolCalls: []activities.ToolCall{call("k1", "a", `{"q": "order"}`)}},
		{Content: "write", ToolCalls: []activities.ToolCall{call("k2", "w", `{"order": 7}`)}},
		{ToolCalls: []activities.ToolCall{call("k3", "hold", `{}`)}},
	}
}

// The write ran; an edit of the look-up's result invalidates it, the model
// re-issues the same write, and the ledger answers it.
func TestAWriteReissuedAfterAnEditIsNotRunTwice(t *testing.T) {
	h := newHarness(t, editSpec(), lookupWriteConfirm(), echoTool)
	var got updateResult
	h.edit(time.Minute, signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"q": "the order, checked"}`)}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, got.rejected)
	require.Equal(t, []string{"a", "w"}, toolNamesOf(h.toolReqs))
	require.Equal(t, []string{"n4", "n5", "n6", "n7"}, got.result.(signals.EditResult).Invalidated)
	next := continuedInput(t, h)

	h2 := newHarness(t, editSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k4", "w", `{"order": 7}`)}},
		{Content: "done"},
	}, echoTool)
	_, err := h2.run(next)
	require.NoError(t, err)
	require.Empty(t, h2.toolReqs, "the identical write is answered by the ledger")
	var reused signals.Node
	for _, n := range h2.trace().Nodes {
		if n.Tool == "w" && n.Status == signals.StatusCompleted {
			reused = n
		}
	}
	require.Equal(t, "n5", reused.ReusedFrom)
	require.JSONEq(t, `{"order":7}`, string(reused.Output))
}

// An edit of a thought alone keeps the calls it made: none runs again,
// and the model reads the new thought.
func TestEditOfAThoughtKeepsItsCalls(t *testing.T) {
	h := newHarness(t, editSpec(), lookupWriteConfirm(), echoTool)
	var got updateResult
	h.edit(time.Minute, signals.EditRequest{NodeID: "n4", Output: json.RawMessage(`"write it, and say so"`)}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, got.rejected)
	require.Equal(t, []string{"n6", "n7"}, got.result.(signals.EditResult).Invalidated, "the write n5 stays")
	next := continuedInput(t, h)

	h2 := newHarness(t, editSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
	_, err := h2.run(next)
	require.NoError(t, err)
	require.Empty(t, h2.toolReqs, "nothing the edit did not change runs again")
	var thought string
	for _, m := range h2.requests[0].Delta {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 && m.ToolCalls[0].Name == "w" {
			thought = m.Content
		}
	}
	require.Equal(t, "write it, and say so", thought)
}

func TestAnAskWriteWaitsForAPersonAndRejectReusesTheResult(t *testing.T) {
	replies := []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "ask", `{"order": 7}`)}},
		{ToolCalls: []activities.ToolCall{call("k2", "hold", `{}`)}},
	}
	h := newHarness(t, editSpec(), replies, echoTool)
	var got updateResult
	// The thought and the call ids change: the call is re-issued as new.
	h.edit(time.Minute, signals.EditRequest{NodeID: "n2", Output: json.RawMessage(
		`{"content": "again", "tool_calls": [{"id": "k9", "name": "ask", "args": {"order": 7}}]}`)}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, got.rejected)
	next := continuedInput(t, h)

	h2 := newHarness(t, editSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
	var seen signals.Status
	var decided updateResult
	h2.env.RegisterDelayedCallback(func() { seen = h2.status() }, time.Minute)
	// The re-issued write is n7 (the edit node is n6).
	h2.approve(2*time.Minute, signals.ApproveRequest{CallID: "n7", Decision: "reject"}, &decided)
	_, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, decided.rejected)
	require.Len(t, seen.PendingApprovals, 1)
	require.Equal(t, "ask", seen.PendingApprovals[0].Tool)
	require.Empty(t, h2.toolReqs, "rejected: the recorded result answers it")
	require.Equal(t, "n3", nodeByID(h2.trace(), "n7").ReusedFrom)
}

func TestEditOfTheTaskStartsOverWithANewTask(t *testing.T) {
	h := newHarness(t, editSpec(), lineageReplies(), echoTool)
	var got updateResult
	h.edit(time.Minute, signals.EditRequest{NodeID: "n1", Output: json.RawMessage(`"a better task"`)}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, got.rejected)
	next := continuedInput(t, h)
	run := next.Continued
	require.Equal(t, "a better task", run.Input.Task)
	require.Equal(t, 0, run.Step)
	require.Empty(t, run.State)
	for _, n := range run.Nodes[1:] {
		if n.Kind != signals.KindEdit {
			require.Equal(t, signals.StatusInvalidated, n.Status, n.ID)
		}
	}
	h2 := newHarness(t, editSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
	_, err := h2.run(next)
	require.NoError(t, err)
	require.Equal(t, "a better task", h2.requests[0].Delta[1].Content)
	require.Len(t, h2.requests[0].Delta, 2, "system and the task: nothing invalidated is read")
}

func TestEditingACallsArgumentsRunsItAgainWithThem(t *testing.T) {
	h := newHarness(t, editSpec(), lineageReplies(), echoTool)
	var got updateResult
	h.edit(time.Minute, signals.EditRequest{NodeID: "n5", Args: json.RawMessage(`{"q": 2}`)}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, got.rejected)
	require.Equal(t, []string{"n5", "n6", "n7"}, got.result.(signals.EditResult).Invalidated)
	next := continuedInput(t, h)
	h2 := newHarness(t, editSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
	_, err := h2.run(next)
	require.NoError(t, err)
	require.Equal(t, []string{"c"}, toolNamesOf(h2.toolReqs))
	require.JSONEq(t, `{"q":2}`, string(h2.toolReqs[0].Args))
	var ranAs string
	for _, m := range h2.requests[0].Delta {
		if m.ToolCallID == "kc" {
			ranAs = m.Content
		}
	}
	require.Contains(t, ranAs, `"changed_by_a_person"`)
}

func TestBadEditsAreRefusedAndTheRunIsUnchanged(t *testing.T) {
	h := newHarness(t, editSpec(), lineageReplies(), echoTool)
	bad := map[string]signals.EditRequest{
		`"n99" is not a node of this run`:                   {NodeID: "n99", Output: json.RawMessage(`1`)},
		`n7 waits for approval and has not run`:             {NodeID: "n7", Output: json.RawMessage(`1`)},
		`give "output" or "args", not both`:                 {NodeID: "n3", Output: json.RawMessage(`1`), Args: json.RawMessage(`{}`)},
		`"args" may not set _outputPath`:                    {NodeID: "n3", Args: json.RawMessage(`{"_outputPath": "†state.y"}`)},
		`n1 is a task: "args" edits a call's`:               {NodeID: "n1", Args: json.RawMessage(`{}`)},
		`tool_calls[0] names unknown tool "nope"`:           {NodeID: "n2", Output: json.RawMessage(`{"tool_calls": [{"name": "nope"}]}`)},
		`the task would be empty`:                           {NodeID: "n1", Output: json.RawMessage(`""`)},
		`n8 is a node of kind edit, which cannot be edited`: {NodeID: "n8", Output: json.RawMessage(`1`)},
	}
	results := map[string]*updateResult{}
	i := 0
	for want, req := range bad {
		got := &updateResult{}
		results[want] = got
		i++
		h.edit(time.Duration(i)*time.Minute, req, got)
	}
	// n8 becomes an edit node: a waiting call's args edited in place.
	var inPlace updateResult
	h.edit(30*time.Second, signals.EditRequest{NodeID: "n7", Args: json.RawMessage(`{"a": 1}`)}, &inPlace)
	h.env.RegisterDelayedCallback(func() {
		h.env.SignalWorkflow(signals.Edit, signals.EditRequest{NodeID: "n42", Output: json.RawMessage(`1`)})
	}, 20*time.Minute)
	h.approve(30*time.Minute, signals.ApproveRequest{CallID: "n7", Decision: "approve"}, &updateResult{})
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, 0, res.Generation, "no refused edit continued the run")
	require.NoError(t, inPlace.rejected)
	for want, got := range results {
		require.ErrorContains(t, got.rejected, want)
	}
	var ignored []signals.Node
	for _, n := range h.trace().Nodes {
		if n.Kind == signals.KindHuman && n.Status == signals.StatusSkipped {
			ignored = append(ignored, n)
		}
	}
	require.Len(t, ignored, 1, "the bad edit signal is recorded and ignored")
	require.Contains(t, ignored[0].Error, `"n42" is not a node of this run`)
}

func nodeByID(tr signals.Trace, id string) signals.Node {
	for _, n := range tr.Nodes {
		if n.ID == id {
			return n
		}
	}
	return signals.Node{}
}

// A fork reads its source whole (mocked here), resolves the agent from the
// worker's config, and starts where the source was at the node, with the
// edit applied and nothing of what followed.
func TestAForkStartsFromTheSourceWithTheEdit(t *testing.T) {
	src := newHarness(t, editSpec(), lineageReplies(), echoTool)
	var approved updateResult
	src.approve(time.Minute, signals.ApproveRequest{CallID: "n7", Decision: "approve"}, &approved)
	_, err := src.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	var packed []byte
	v, err := src.env.QueryWorkflow(signals.QueryRun)
	require.NoError(t, err)
	require.NoError(t, v.Get(&packed))

	fork := newHarness(t, editSpec(), []activities.ModelReply{{Content: "forked"}}, echoTool)
	fork.env.OnActivity(acts.ReadRun, mock.Anything, "source-1").Return(packed, nil)
	res, err := fork.run(AgentInput{From: &ForkFrom{WorkflowID: "source-1", NodeID: "n3",
		Edit: json.RawMessage(`{"output": {"v": "forked"}, "by": "carol"}`)}})
	require.NoError(t, err)
	require.JSONEq(t, `"forked"`, string(res.Output))
	require.Equal(t, 0, res.Generation)
	require.Equal(t, []string{"b"}, toolNamesOf(fork.toolReqs), "only what read the edited output runs")
	require.JSONEq(t, `{"got":{"v":"forked"}}`, string(fork.toolReqs[0].Args))
	ids := map[string]bool{}
	for _, n := range fork.trace().Nodes {
		ids[n.ID] = true
		require.NotEqual(t, signals.StatusInvalidated, n.Status, "the source's future is not the fork's past: %s", n.ID)
	}
	require.True(t, ids["n3"] && ids["n5"], "kept nodes keep their ids")
	require.False(t, ids["n6"], "the source's later step is dropped")
	e := nodesByKind(fork.trace(), signals.KindEdit)
	require.Len(t, e, 1)
	require.Equal(t, "carol", e[0].By)
	require.Contains(t, string(e[0].Output), `"forked_from":{"node_id":"n3","workflow_id":"source-1"}`)
}

func TestBadForksAreRefusedNamingTheField(t *testing.T) {
	src := newHarness(t, editSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
	_, err := src.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	v, err := src.env.QueryWorkflow(signals.QueryRun)
	require.NoError(t, err)
	var packed []byte
	require.NoError(t, v.Get(&packed))
	for _, tt := range []struct {
		from ForkFrom
		in   AgentInput
		want string
	}{
		{ForkFrom{NodeID: "n1"}, AgentInput{}, "input.from.workflow_id is empty"},
		{ForkFrom{WorkflowID: "s"}, AgentInput{}, "input.from.node_id is empty"},
		{ForkFrom{WorkflowID: "s", NodeID: "n1"}, AgentInput{Task: "other"}, "a fork takes the task, input and output_schema of the run it forks"},
		{ForkFrom{WorkflowID: "s", NodeID: "n1", Edit: json.RawMessage(`{"outptu": 1}`)}, AgentInput{}, `input.from.edit: want {"output"?`},
		{ForkFrom{WorkflowID: "s", NodeID: "n99"}, AgentInput{}, `input.from: "n99" is not a node of this run`},
		{ForkFrom{WorkflowID: "s", NodeID: "n1"}, AgentInput{Agent: "travel"}, `input.agent is "travel" but run "s" is agent "agent"`},
	} {
		h := newHarness(t, editSpec(), nil, echoTool)
		h.env.OnActivity(acts.ReadRun, mock.Anything, "s").Return(packed, nil)
		in := tt.in
		from := tt.from
		in.From = &from
		_, err := h.run(in)
		require.ErrorContains(t, err, tt.want)
	}
}

// A person's reply, edited: the model reads the new reply (and the
// ladder's note of it), never the old one.
func TestEditOfAPersonsReply(t *testing.T) {
	spec := editSpec()
	spec.Agent.Policies.Loop = config.LoopPolicy{Window: 16, Repeats: 3}
	spec.Agent.Policies.Escalation = []string{"human", "stop"}
	failing := call("k", "a", `{"q": 1}`)
	replies := append(repeat(3, failing, activities.ModelReply{}), activities.ModelReply{})[:3]
	replies = append(replies, activities.ModelReply{ToolCalls: []activities.ToolCall{call("kh", "hold", `{}`)}})
	h := newHarness(t, spec, replies, func(req activities.ToolRequest) (json.RawMessage, error) {
		if req.Tool.Name == "a" {
			return failingTool(req)
		}
		return echoTool(req)
	})
	var replied, edited updateResult
	h.reply(time.Minute, "try b", &replied)
	h.edit(2*time.Minute, signals.EditRequest{NodeID: "n9", Output: json.RawMessage(`"use c"`)}, &edited)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, replied.rejected)
	require.NoError(t, edited.rejected)
	next := continuedInput(t, h)
	require.Equal(t, signals.KindHuman, next.Continued.node("n9").Kind)

	h2 := newHarness(t, spec, []activities.ModelReply{{Content: "done"}}, echoTool)
	_, err := h2.run(next)
	require.NoError(t, err)
	var texts []string
	for _, m := range h2.requests[0].Delta {
		texts = append(texts, m.Content)
	}
	all := strings.Join(texts, "\n")
	require.Contains(t, all, "A person replied: use c")
	require.Contains(t, all, "[unstuck] a person replied: use c")
	require.NotContains(t, all, "try b")
	require.NotContains(t, all, "hold", "the step after the reply is invalidated")
}

// Checkpoints are kept for the latest requests that can still be edited:
// invalidated ones give theirs up, and there are never more than the bound.
func TestCheckpointsAreBoundedAndOnlyOnValidNodes(t *testing.T) {
	run := &Run{Spec: editSpec()}
	r, err := newRunner(run)
	require.NoError(t, err)
	for i := 0; i < 2*edit.MaxCheckpoints; i++ {
		run.NextID++
		id := fmt.Sprintf("n%d", run.NextID)
		status := signals.StatusCompleted
		if i%3 == 0 {
			status = signals.StatusInvalidated
		}
		run.Nodes = append(run.Nodes, Node{Node: signals.Node{ID: id, Kind: signals.KindRequest, Status: status}})
		r.edit().Checkpoint(id)
	}
	kept, onInvalid := 0, 0
	for _, n := range run.Nodes {
		if len(n.Checkpoint) > 0 {
			kept++
			if n.Status == signals.StatusInvalidated {
				onInvalid++
			}
		}
	}
	require.LessOrEqual(t, kept, edit.MaxCheckpoints)
	require.Zero(t, onInvalid, "an invalidated node's checkpoint is dropped")
	require.Equal(t, edit.MaxCheckpoints, kept, "the bound is filled by valid nodes")
	require.NotEmpty(t, run.Nodes[len(run.Nodes)-1].Checkpoint, "the latest valid request keeps its checkpoint")
}

// A rollback invalidates a loop of writes that succeeded; the write the
// model issues again afterwards is answered by the effect ledger, so the
// rolled-back run does not write a fourth time.
func TestAfterARollbackTheSameWriteIsNotRunAgain(t *testing.T) {
	spec := stubbornSpec("rollback", "stop")
	for i := range spec.Tools {
		if spec.Tools[i].Name == "book_flight" {
			spec.Tools[i].Effect = config.EffectWrite
		}
	}
	book := call("k", "book_flight", `{"flight_id":"UA1","passengers":1}`)
	search := call("s", "search_flights", `{"from":"NYC"}`)
	replies := append([]activities.ModelReply{{ToolCalls: []activities.ToolCall{search}}}, repeat(3, book, activities.ModelReply{})...)
	h := newHarness(t, spec, replies, okTool)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "travel", Task: "book"})
	next := continuedInput(t, h)
	require.Equal(t, 3, len(toolNamesOf(h.toolReqs))-1, "three bookings ran before the rollback")

	h2 := newHarness(t, spec, []activities.ModelReply{{ToolCalls: []activities.ToolCall{book}}, {Content: "booked"}}, okTool)
	_, err := h2.run(next)
	require.NoError(t, err)
	require.Empty(t, h2.toolReqs, "the booking after the rollback is answered by the ledger")
	var reused int
	for _, n := range h2.trace().Nodes {
		if n.ReusedFrom != "" {
			reused++
		}
	}
	require.Equal(t, 1, reused)
}

// In a graph run, a tool node's output is edited while a later node waits:
// the walk picks up after the edited node with the edge its outcome takes,
// the edited value in State, and the node is not run again.
func TestEditOfAGraphToolNodesOutput(t *testing.T) {
	spec := editSpec()
	spec.Agent.Graph = &config.Graph{
		Start: "S",
		Nodes: map[string]config.GraphNode{
			"S": {Tool: "a", Args: map[string]any{"v": "old"}, OutputPath: "†state.s"},
			"H": {Tool: "hold", Args: map[string]any{}},
			"E": {End: true, Output: "†state.s.v"},
		},
		Edges: []config.GraphEdge{{From: "S", To: "H"}, {From: "H", To: "E"}},
	}
	h := newHarness(t, spec, nil, echoTool)
	var got, refused updateResult
	h.edit(time.Minute, signals.EditRequest{NodeID: "n2", Args: json.RawMessage(`{"v": "x"}`)}, &refused)
	h.edit(2*time.Minute, signals.EditRequest{NodeID: "n2", Output: json.RawMessage(`{"v": "new"}`), Audit: signals.Audit{By: "dana"}}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "walk"})
	require.ErrorContains(t, refused.rejected, "whose arguments are the graph's")
	require.NoError(t, got.rejected)
	require.Equal(t, []string{"n3"}, got.result.(signals.EditResult).Invalidated)
	next := continuedInput(t, h)
	require.Equal(t, "S", next.Continued.ResumeFrom.Node)

	h2 := newHarness(t, spec, nil, echoTool)
	var approved updateResult
	h2.approve(time.Minute, signals.ApproveRequest{CallID: "n5", Decision: "approve"}, &approved)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, approved.rejected)
	require.JSONEq(t, `"new"`, string(res.Output), "the end node reads the edited State")
	require.Equal(t, []string{"hold"}, toolNamesOf(h2.toolReqs), "S is not run again")

	// A fork of the closed graph run from S, with S's output edited.
	v, err := h2.env.QueryWorkflow(signals.QueryRun)
	require.NoError(t, err)
	var packed []byte
	require.NoError(t, v.Get(&packed))
	fork := newHarness(t, spec, nil, echoTool)
	fork.env.OnActivity(acts.ReadRun, mock.Anything, "graph-source").Return(packed, nil)
	fork.env.RegisterDelayedCallback(func() {
		pending := fork.status().PendingApprovals
		require.Len(t, pending, 1)
		fork.approve(0, signals.ApproveRequest{CallID: pending[0].CallID, Decision: "approve"}, &updateResult{})
	}, time.Minute)
	out, err := fork.run(AgentInput{From: &ForkFrom{WorkflowID: "graph-source", NodeID: "n2", Edit: json.RawMessage(`{"output": {"v": "forked"}}`)}})
	require.NoError(t, err)
	require.JSONEq(t, `"forked"`, string(out.Output))
	require.Equal(t, []string{"hold"}, toolNamesOf(fork.toolReqs))
}

// A write that needs approval and already ran is not put before a person
// again when an edit re-issues it as it was: the ledger answers it.
func TestAReissuedApprovedWriteIsNotAskedAgain(t *testing.T) {
	spec := editSpec()
	for i := range spec.Tools {
		if spec.Tools[i].Name == "w" {
			spec.Tools[i].Approval = config.ApprovalAlways
		}
	}
	h := newHarness(t, spec, lookupWriteConfirm(), echoTool)
	var approved, got updateResult
	h.approve(time.Minute, signals.ApproveRequest{CallID: "n5", Decision: "approve"}, &approved)
	h.edit(2*time.Minute, signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"q": "checked"}`)}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, approved.rejected)
	require.NoError(t, got.rejected)
	require.Equal(t, []string{"a", "w"}, toolNamesOf(h.toolReqs))
	next := continuedInput(t, h)

	h2 := newHarness(t, spec, []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k4", "w", `{"order": 7}`)}},
		{Content: "done"},
	}, echoTool)
	_, err := h2.run(next)
	require.NoError(t, err, "no approval is awaited (it would time out after an hour and fail the call)")
	require.Empty(t, h2.toolReqs)
	require.Empty(t, nodesByKind(h2.trace(), signals.KindApproval)[1:], "only the first run's approval")
}

// In a graph run, an llm node's call output is edited while a later node
// waits: the llm node's step is finished (nothing of it runs again), and
// the walk goes on from there with the edited State.
func TestEditOfAGraphLLMNodesCall(t *testing.T) {
	spec, next := editedGraphCall(t)

	h2 := newHarness(t, spec, nil, echoTool)
	var approved updateResult
	h2.approve(time.Minute, signals.ApproveRequest{CallID: "n6", Decision: "approve"}, &approved)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, approved.rejected)
	require.JSONEq(t, `"edited"`, string(res.Output))
	require.Equal(t, []string{"hold"}, toolNamesOf(h2.toolReqs), "the llm node's call is not run again")
	require.Empty(t, h2.requests, "nor is the model asked again")
}
