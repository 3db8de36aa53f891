package workflows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// checkSpec has checked tools: book (verify expression), reserve (a
// read-back by get_booking), find (result_schema), and w, a plain write.
func checkSpec() *config.Resolved {
	obj := map[string]any{"type": "object"}
	f := &config.File{
		Model: config.Model{BaseURL: "http://127.0.0.1:1/v1", Name: "scripted:test"},
		Tools: []config.Tool{
			{Name: "book", Builtin: "echo", Parameters: obj, Effect: config.EffectWrite,
				Verify: &config.Verify{Expr: "result.status == 'booked' && result.date == args.date"}},
			{Name: "reserve", Builtin: "echo", Parameters: obj, Effect: config.EffectWrite,
				Verify: &config.Verify{Tool: "get_booking", Args: map[string]any{"id": "†result.id"}, Expect: "result.state == 'confirmed'"}},
			{Name: "get_booking", Builtin: "echo", Parameters: obj},
			{Name: "find", Builtin: "echo", Parameters: obj,
				ResultSchema: map[string]any{"type": "object", "required": []any{"hotel"}}},
			{Name: "w", Builtin: "echo", Parameters: obj, Effect: config.EffectWrite},
			{Name: "ping", Builtin: "echo", Parameters: obj, Effect: config.EffectWrite, Repeatable: true},
		},
		Agents: []config.Agent{{Name: "agent", Instructions: "x", Tools: []string{"book", "reserve", "find", "w", "ping"}}},
	}
	return mustResolve(f, "agent")
}

// answers is a tool double answering each tool with its next canned result.
func answers(t *testing.T, byTool map[string][]string) func(activities.ToolRequest) (json.RawMessage, error) {
	return func(req activities.ToolRequest) (json.RawMessage, error) {
		list := byTool[req.Tool.Name]
		require.NotEmpty(t, list, "no answer left for %s", req.Tool.Name)
		byTool[req.Tool.Name] = list[1:]
		return json.RawMessage(list[0]), nil
	}
}

func callNode(t *testing.T, tr signals.Trace, id string) signals.Node {
	for _, n := range tr.Nodes {
		if n.ID == id {
			return n
		}
	}
	t.Fatalf("no node %s", id)
	return signals.Node{}
}

func TestAVerifyThatFailsSettlesTheCallUnverified(t *testing.T) {
	h := newHarness(t, checkSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "book", `{"date":"2026-12-01"}`)}},
		{Content: "done"},
	}, answers(t, map[string][]string{"book": {`{"status":"pending","date":"2026-12-01"}`}}))
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, "completed", res.Status)

	n := callNode(t, h.trace(), "n3")
	require.Equal(t, signals.StatusFailed, n.Status)
	require.Equal(t, `verify "result.status == 'booked' && result.date == args.date" is false: result.status = "pending", result.date = "2026-12-01", args.date = "2026-12-01"`, n.Error)
	require.JSONEq(t, `{"status":"pending","date":"2026-12-01"}`, string(n.Output), "what the tool claimed stays beside the verdict")
	require.Equal(t, &signals.Check{Kind: signals.CheckVerify, Condition: "result.status == 'booked' && result.date == args.date", Reason: n.Error,
		Seen: []signals.Seen{{Path: "result.status", Value: json.RawMessage(`"pending"`)}, {Path: "result.date", Value: json.RawMessage(`"2026-12-01"`)}, {Path: "args.date", Value: json.RawMessage(`"2026-12-01"`)}}}, n.Check)

	// The model reads the failure, its class and what the tool claimed.
	msg := h.requests[1].Delta[0]
	require.Equal(t, "tool", msg.Role)
	var env map[string]any
	require.NoError(t, json.Unmarshal([]byte(msg.Content), &env))
	require.Equal(t, "unverified", env["class"])
	require.Equal(t, map[string]any{"status": "pending", "date": "2026-12-01"}, env["result"])
	require.Equal(t, n.Error, env["error"])

	st := h.status()
	require.Equal(t, 1, st.Unverified)
	require.Equal(t, n.Error, st.LastError)
}

func TestAVerifyThatHoldsKeepsTheCall(t *testing.T) {
	h := newHarness(t, checkSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "book", `{"date":"2026-12-01"}`)}},
		{Content: "done"},
	}, answers(t, map[string][]string{"book": {`{"status":"booked","date":"2026-12-01"}`}}))
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	n := callNode(t, h.trace(), "n3")
	require.Equal(t, signals.StatusCompleted, n.Status)
	require.Equal(t, &signals.Check{Kind: signals.CheckVerify, Condition: "result.status == 'booked' && result.date == args.date", Passed: true}, n.Check)
	require.Zero(t, h.status().Unverified)
}

func TestAnEmptyResultFailsTheResultSchema(t *testing.T) {
	h := newHarness(t, checkSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "find", `{"q":"nyc"}`)}},
		{Content: "done"},
	}, answers(t, map[string][]string{"find": {`{}`}}))
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	n := callNode(t, h.trace(), "n3")
	require.Equal(t, signals.StatusFailed, n.Status)
	require.Contains(t, n.Error, "the tool answered an empty object {} where its result_schema wants content: ")
	require.Contains(t, n.Error, "hotel")
	require.Equal(t, signals.CheckResultSchema, n.Check.Kind)
}

// A read-back is a call of its own, checking the call it names; the model
// never sees it, only the verdict on its own call.
func TestAReadBackChecksTheCall(t *testing.T) {
	h := newHarness(t, checkSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "reserve", `{"room":"12"}`)}},
		{Content: "done"},
	}, answers(t, map[string][]string{"reserve": {`{"id":"b1"}`}, "get_booking": {`{"state":"confirmed"}`}}))
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, []string{"reserve", "get_booking"}, toolNamesOf(h.toolReqs))
	require.JSONEq(t, `{"id":"b1"}`, string(h.toolReqs[1].Args))
	tr := h.trace()
	n := callNode(t, tr, "n3")
	require.Equal(t, signals.StatusCompleted, n.Status)
	require.True(t, n.Check.Passed)
	require.Equal(t, signals.CheckReadBack, n.Check.Kind)
	rb := callNode(t, tr, n.Check.ReadBack)
	require.Equal(t, "n3", rb.CheckOf)
	require.Equal(t, []string{"n3"}, rb.Parents)
	require.Equal(t, "get_booking", rb.Tool)
	require.Len(t, h.requests[1].Delta, 1, "the model reads its own call's answer, not the read-back")
	require.Equal(t, "k1", h.requests[1].Delta[0].ToolCallID)
}

// An unverified write asked for again is never simply run again: its
// read-back runs first. Here the write took effect after all: the call is
// answered with the earlier result, and the tool gets no second write.
func TestAnUnverifiedWriteThatDidHappenIsNotRunAgain(t *testing.T) {
	reserve := call("k1", "reserve", `{"room":"12"}`)
	again := call("k2", "reserve", `{"room":"12"}`)
	h := newHarness(t, checkSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{reserve}},
		{ToolCalls: []activities.ToolCall{again}},
		{Content: "done"},
	}, answers(t, map[string][]string{"reserve": {`{"id":"b1"}`}, "get_booking": {`{"state":"missing"}`, `{"state":"confirmed"}`}}))
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, []string{"reserve", "get_booking", "get_booking"}, toolNamesOf(h.toolReqs), "one write, then a read-back each time")
	tr := h.trace()
	first := callNode(t, tr, "n3")
	require.Equal(t, signals.StatusFailed, first.Status)
	require.Contains(t, first.Error, `read-back get_booking({"id":"b1"}): expect "result.state == 'confirmed'" is false: result.state = "missing"`)
	second := callNode(t, tr, "n6")
	require.Equal(t, "reserve", second.Tool)
	require.Equal(t, signals.StatusCompleted, second.Status)
	require.Equal(t, "n3", second.ReusedFrom)
	require.JSONEq(t, `{"id":"b1"}`, string(second.Output))
	require.Contains(t, second.Check.Reason, "the write of n3 took effect after all")
	require.Equal(t, 1, h.status().Unverified)
}

// Here it did not: the write runs once more, with the first try's
// Idempotency-Key, and is checked again.
func TestAnUnverifiedWriteThatDidNotHappenRunsOnceMore(t *testing.T) {
	h := newHarness(t, checkSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "reserve", `{"room":"12"}`)}},
		{ToolCalls: []activities.ToolCall{call("k2", "reserve", `{"room":"12"}`)}},
		{Content: "done"},
	}, answers(t, map[string][]string{
		"reserve":     {`{"id":"b1"}`, `{"id":"b1"}`},
		"get_booking": {`{"state":"missing"}`, `{"state":"missing"}`, `{"state":"confirmed"}`},
	}))
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, []string{"reserve", "get_booking", "get_booking", "reserve", "get_booking"}, toolNamesOf(h.toolReqs))
	require.Equal(t, "n3", h.toolReqs[0].CallID)
	require.Equal(t, "n3", h.toolReqs[3].CallID, "the second try takes the first's key")
	second := callNode(t, h.trace(), "n6")
	require.Equal(t, signals.StatusCompleted, second.Status)
	require.Empty(t, second.ReusedFrom)
	require.True(t, second.Check.Passed)
}

// A write answering a repeat of itself as before is no progress: the
// third such call is a no-progress loop of class no_op. A repeatable
// tool's repeats are a plain cycle.
func TestAWriteThatChangesNothingIsNoProgress(t *testing.T) {
	for _, tc := range []struct {
		name, tool, kind, class string
		before                  bool
	}{
		{"a write", "w", policies.LoopNoProgress, string(policies.NoOp), false},
		{"a repeatable write", "ping", policies.LoopCycle, "", false},
		{"a run recorded before no-op-writes", "w", policies.LoopCycle, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := call("k", tc.tool, `{"order":7}`)
			h := newHarness(t, checkSpec(), repeat(4, c, activities.ModelReply{Content: "done"}),
				answers(t, map[string][]string{tc.tool: {`{"ok":true}`, `{"ok":true}`, `{"ok":true}`, `{"ok":true}`}}))
			if tc.before {
				h.before(versionNoOpWrites)
			}
			_, _ = h.run(AgentInput{Agent: "agent", Task: "t"})
			escalations := nodesByKind(h.trace(), signals.KindEscalation)
			require.NotEmpty(t, escalations)
			var args struct{ Loop policies.Loop }
			require.NoError(t, json.Unmarshal(escalations[0].Args, &args))
			require.Equal(t, tc.kind, args.Loop.Kind)
			require.Equal(t, tc.class, args.Loop.Class)
			for _, n := range graphCalls(h.trace())[:3] {
				require.Equal(t, signals.StatusCompleted, n.Status, "the calls themselves succeeded")
			}
		})
	}
}

// A graph's tool node is checked the same way: the unverified call takes
// the node's !ok edge.
func TestAGraphToolNodeIsChecked(t *testing.T) {
	spec := checkSpec()
	spec.Agent.Policies.MaxSteps = 3
	spec.Agent.Graph = oneNodeGraph("book", map[string]any{"date": "2026-12-01"})
	h := newHarness(t, spec, nil, answers(t, map[string][]string{"book": {`{"status":"pending"}`, `{"status":"booked","date":"2026-12-01"}`}}))
	res, err := h.run(AgentInput{Agent: "agent", Task: "walk"})
	require.NoError(t, err)
	require.JSONEq(t, `{"status":"booked","date":"2026-12-01"}`, string(res.Output))
	calls := graphCalls(h.trace())
	require.Len(t, calls, 2)
	require.Equal(t, signals.StatusFailed, calls[0].Status)
	require.Contains(t, calls[0].Error, `result.status = "pending"`)
	require.Equal(t, signals.StatusCompleted, calls[1].Status)
	require.Equal(t, 1, h.status().Unverified)
}

// A run recorded before checked calls settles a checked tool's call as
// the tool answered.
func TestARunBeforeCheckedCallsDoesNotCheck(t *testing.T) {
	h := newHarness(t, checkSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "book", `{"date":"2026-12-01"}`)}},
		{Content: "done"},
	}, answers(t, map[string][]string{"book": {`{"status":"pending"}`}}))
	h.before(versionCheckedCalls)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	n := callNode(t, h.trace(), "n3")
	require.Equal(t, signals.StatusCompleted, n.Status)
	require.Nil(t, n.Check)
}

// An edit that brings back an unverified write respects its verdict: the
// write's read-back runs first, finds that the write acted after all, and
// the write is not made again.
func TestAnEditRespectsAnUnverifiedWrite(t *testing.T) {
	spec := checkSpec()
	spec.Tools = append(spec.Tools,
		config.Tool{Name: "a", Builtin: "echo", Parameters: map[string]any{"type": "object"}},
		config.Tool{Name: "hold", Builtin: "echo", Parameters: map[string]any{"type": "object"}, Approval: config.ApprovalAlways})
	spec.Agent.Tools = append(spec.Agent.Tools, "a", "hold")
	spec.Agent.Policies.HumanTimeout = config.Duration(time.Hour)
	h := newHarness(t, spec, []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "a", `{"q":"room"}`)}},
		{ToolCalls: []activities.ToolCall{call("k2", "reserve", `{"room":"12"}`)}},
		{ToolCalls: []activities.ToolCall{call("k3", "hold", `{}`)}},
	}, answers(t, map[string][]string{"a": {`{"q":"room"}`}, "reserve": {`{"id":"b1"}`}, "get_booking": {`{"state":"missing"}`}}))
	var got updateResult
	h.edit(time.Minute, signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"q":"room 12, checked"}`)}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, got.rejected)
	require.Equal(t, []string{"a", "reserve", "get_booking"}, toolNamesOf(h.toolReqs))
	next := continuedInput(t, h)

	h2 := newHarness(t, spec, []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k4", "reserve", `{"room":"12"}`)}},
		{Content: "done"},
	}, answers(t, map[string][]string{"get_booking": {`{"state":"confirmed"}`}}))
	_, err := h2.run(next)
	require.NoError(t, err)
	require.Equal(t, []string{"get_booking"}, toolNamesOf(h2.toolReqs), "only the read-back: the write is not made again")
	var again signals.Node
	for _, n := range h2.trace().Nodes {
		if n.Tool == "reserve" && n.Status == signals.StatusCompleted {
			again = n
		}
	}
	require.Equal(t, "n5", again.ReusedFrom)
	require.JSONEq(t, `{"id":"b1"}`, string(again.Output))
}

// In a graph, an llm node whose calls are writes that change nothing is
// no progress too: the third such visit is a no_op loop, as in a
// free-form run (the llm node's own event carries the class).
func TestAnLLMNodeWhoseWritesChangeNothingIsNoProgress(t *testing.T) {
	c := call("k", "w", `{"order":7}`)
	h := newHarness(t, chatGraph(checkSpec()), repeat(4, c, activities.ModelReply{Content: "done"}),
		answers(t, map[string][]string{"w": {`{"ok":true}`, `{"ok":true}`, `{"ok":true}`, `{"ok":true}`}}))
	_, _ = h.run(AgentInput{Agent: "agent", Task: "t"})
	escalations := nodesByKind(h.trace(), signals.KindEscalation)
	require.NotEmpty(t, escalations)
	var args struct{ Loop policies.Loop }
	require.NoError(t, json.Unmarshal(escalations[0].Args, &args))
	require.Equal(t, policies.LoopNoProgress, args.Loop.Kind)
	require.Equal(t, string(policies.NoOp), args.Loop.Class)
}
