package workflows

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// echoSpec is an agent with echo-like tools a, b, c whose mocked results
// are their arguments, so references can be followed through State.
func echoSpec() *config.Resolved {
	obj := map[string]any{"type": "object"}
	f := &config.File{
		Model: config.Model{BaseURL: "http://127.0.0.1:1/v1", Name: "scripted:test"},
		Tools: []config.Tool{
			{Name: "a", Builtin: "echo", Parameters: obj},
			{Name: "b", Builtin: "echo", Parameters: obj},
			{Name: "c", Builtin: "echo", Parameters: obj},
			{Name: "typed", Builtin: "echo", Parameters: map[string]any{
				"type": "object", "required": []any{"n"},
				"properties": map[string]any{"n": map[string]any{"type": "integer"}},
			}},
		},
		Agents: []config.Agent{{Name: "agent", Instructions: "x", Tools: []string{"a", "b", "c", "typed"}}},
	}
	return mustResolve(f, "agent")
}

// concurrency tracks how many mocked tool calls run at once and in which
// order they started and finished.
type concurrency struct {
	mu       sync.Mutex
	inFlight int
	max      int
	started  []string
	finished []string
	delay    map[string]time.Duration
}

func (c *concurrency) tool(req activities.ToolRequest) (json.RawMessage, error) {
	c.mu.Lock()
	c.inFlight++
	c.max = max(c.max, c.inFlight)
	c.started = append(c.started, req.Tool.Name)
	d := c.delay[req.Tool.Name]
	c.mu.Unlock()
	time.Sleep(d)
	c.mu.Lock()
	c.inFlight--
	c.finished = append(c.finished, req.Tool.Name)
	c.mu.Unlock()
	return req.Args, nil
}

func nodeByTool(tr signals.Trace, tool string) signals.Node {
	for _, n := range tr.Nodes {
		if n.Kind == signals.KindCall && n.Tool == tool {
			return n
		}
	}
	return signals.Node{}
}

func TestIndependentCallsRunTogetherAndDependantsAfter(t *testing.T) {
	cc := &concurrency{delay: map[string]time.Duration{"a": 300 * time.Millisecond, "b": 300 * time.Millisecond}}
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{
			call("k3", "c", `{"sum": ["†state.a.v", "†state.b.v"]}`),
			call("k1", "a", `{"v": 1, "_outputPath": "†state.a"}`),
			call("k2", "b", `{"v": 2, "_outputPath": "†state.b"}`),
		}},
		{Content: "ok"},
	}, cc.tool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, 2, cc.max, "a and b run at the same time")
	require.Equal(t, "c", cc.started[2], "c starts only after a and b")
	require.ElementsMatch(t, []string{"a", "b"}, cc.finished[:2])

	tr := h.trace()
	require.JSONEq(t, `{"sum":[1,2]}`, string(nodeByTool(tr, "c").Args), "references resolved before the call")
	require.JSONEq(t, `{"v":1}`, string(nodeByTool(tr, "a").Args), "_outputPath never reaches the tool")
	// The model reads the results in the order of its calls.
	delta := h.requests[1].Delta
	require.Equal(t, []string{"k3", "k1", "k2"}, []string{delta[0].ToolCallID, delta[1].ToolCallID, delta[2].ToolCallID})
}

func TestReferenceErrorsAreStructural(t *testing.T) {
	cc := &concurrency{}
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{
			call("k1", "a", `{"x": "†state.b", "_outputPath": "†state.a"}`),       // cycle with k2
			call("k2", "b", `{"x": "†state.a", "_outputPath": "†state.b"}`),       // cycle with k1
			call("k3", "c", `{"x": "†state.nothing"}`),                            // nothing writes it
			call("k4", "c", `{"x": "†state.self", "_outputPath": "†state.self"}`), // reads itself
			call("k5", "c", `{"_outputPath": "†input.q"}`),                        // not State
			call("k6", "c", `{"x": "†stat.q"}`),                                   // malformed
			call("k7", "typed", `{"n": "three"}`),                                 // schema
			call("k8", "c", `{"x": "†state.missing || †input.q"}`),                // fallback: fine
		}},
		{Content: "ok"},
	}, cc.tool)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t", Input: json.RawMessage(`{"q": "from input"}`)})
	require.NoError(t, err)
	require.Equal(t, []string{"c"}, cc.started, "only the call with a resolvable reference ran")

	errs := map[string]string{}
	for _, m := range h.requests[1].Delta {
		var env struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal([]byte(m.Content), &env)
		errs[m.ToolCallID] = env.Error
	}
	require.Contains(t, errs["k1"], "cyclic reference")
	require.Contains(t, errs["k2"], "cyclic reference")
	require.Contains(t, errs["k3"], "unresolved reference †state.nothing")
	require.Contains(t, errs["k4"], "cyclic reference")
	require.Contains(t, errs["k5"], "must start with †state.")
	require.Contains(t, errs["k6"], "malformed reference")
	require.Contains(t, errs["k7"], "do not match the tool's parameters schema")
	require.Contains(t, errs["k7"], "at /n")
	require.Empty(t, errs["k8"])
	require.JSONEq(t, `{"x":"from input"}`, h.requestArgs(cc, "c"), "a || b takes the first that exists")
}

func (h *harness) requestArgs(_ *concurrency, tool string) string {
	for _, r := range h.toolReqs {
		if r.Tool.Name == tool {
			return string(r.Args)
		}
	}
	return ""
}

func TestTwoWritersLastCompletionWins(t *testing.T) {
	cc := &concurrency{delay: map[string]time.Duration{"a": 400 * time.Millisecond, "b": 50 * time.Millisecond}}
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{
			call("k1", "a", `{"who": "slow a", "_outputPath": "†state.x"}`),
			call("k2", "b", `{"who": "fast b", "_outputPath": "†state.x"}`),
			call("k3", "c", `{"x": "†state.x.who"}`),
			call("k4", "final_output", `{"winner": "†state.x.who"}`),
		}},
	}, cc.tool)
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, []string{"b", "a", "c"}, cc.finished)
	require.JSONEq(t, `{"x":"slow a"}`, h.requestArgs(cc, "c"), "c waited for both writers")
	require.JSONEq(t, `{"winner":"slow a"}`, string(res.Output), "final_output resolves after the other calls")
	tr := h.trace()
	require.Equal(t, signals.StatusCompleted, nodeByTool(tr, "a").Status)
	require.Equal(t, signals.StatusCompleted, nodeByTool(tr, "b").Status)
}

func TestReferencesReachAcrossSteps(t *testing.T) {
	h := newHarness(t, echoSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "a", `{"flight": {"id": "UA1"}, "_outputPath": "†state.search"}`)}},
		{ToolCalls: []activities.ToolCall{call("k2", "b", `{"id": "†state.search.flight.id"}`)}},
		{Content: "done"},
	}, func(req activities.ToolRequest) (json.RawMessage, error) { return req.Args, nil })
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.JSONEq(t, `{"id":"UA1"}`, string(h.toolReqs[1].Args))
	require.False(t, strings.Contains(string(h.toolReqs[0].Args), "_outputPath"))
}

func TestIdenticalCallsOfOneReplyAreNotALoop(t *testing.T) {
	spec := echoSpec()
	spec.Agent.Policies.Loop = config.LoopPolicy{Window: 16, Repeats: 3}
	same := call("k", "a", `{"v": 1}`)
	h := newHarness(t, spec, []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{same, same, same, same, same}},
		{Content: "ok"},
	}, func(req activities.ToolRequest) (json.RawMessage, error) { return req.Args, nil })
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Empty(t, res.Escalations)
	require.Len(t, h.toolReqs, 5)
}
