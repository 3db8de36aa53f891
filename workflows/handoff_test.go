package workflows

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
)

// registrySpec is a registry of a general agent (may hand to orders and
// any person), orders, and a person.
func registrySpec(handoffs ...string) *config.Resolved {
	f := &config.File{
		Model: config.Model{BaseURL: "http://127.0.0.1:1/v1", Name: "scripted:test"},
		Agents: []config.Agent{
			{Name: "general", Instructions: "Route.", Handoffs: handoffs},
			{Name: "orders", Instructions: "Orders.", Capabilities: []string{"orders"}},
			{Name: "person", Kind: config.KindHuman},
		},
	}
	return mustResolve(f, "general")
}

// The agent a run was handed to reads its instructions, the task, the
// handoff (brief and context), then only what happened since.
func TestConversationAfterAHandoffStartsFromIt(t *testing.T) {
	spec := registrySpec("*")
	run := &Run{Spec: spec, Input: AgentInput{Agent: "general", Task: "where is order 7?"}, Progress: Progress{State: refs.State{}}}
	add := func(n Node) { n.ID = run.newNodeID(); run.Nodes = append(run.Nodes, n) }
	add(Node{Node: signals.Node{Kind: signals.KindTask, Status: signals.StatusCompleted}})
	add(Node{Node: signals.Node{Kind: signals.KindRequest, Status: signals.StatusCompleted, Output: mustJSON(replyRecord{Content: "the general agent thinks"})}})
	hc := newHandoffContext(run, "wf", "out_of_scope", "order question", "look it up", true)
	add(Node{Node: signals.Node{Kind: signals.KindHandoff, Status: signals.StatusCompleted, Output: mustJSON(hc)}})
	add(Node{Node: signals.Node{Kind: signals.KindRequest, Status: signals.StatusCompleted, Output: mustJSON(replyRecord{Content: "orders thinks"})}})
	run.Spec.Agent.Instructions = "You are orders."

	msgs := buildConversation(run)
	require.Len(t, msgs, 4)
	require.Equal(t, "system", msgs[0].Role)
	require.Contains(t, msgs[0].Content, "You are orders.")
	require.Equal(t, "where is order 7?", msgs[1].Content)
	require.Contains(t, msgs[2].Content, "handed over to you by agent general (reason: out_of_scope)")
	require.Contains(t, msgs[2].Content, "the general agent thinks", "the context carries the source's conversation")
	require.Equal(t, "orders thinks", msgs[3].Content)
	require.Equal(t, 2, run.lastHandoff())
}

// A context stays under its bound: the oldest tool records go first,
// then the State is not repeated, then the conversation is cut further.
func TestHandoffContextFitsItsBound(t *testing.T) {
	big := strings.Repeat("x", 3<<10)
	hc := HandoffContext{Metadata: map[string]any{}, State: refs.State{"blob": strings.Repeat("s", 400<<10)}}
	for i := 0; i < 300; i++ {
		hc.ToolRecords = append(hc.ToolRecords, ToolRecord{Node: "n", Tool: "t", Output: mustJSON(big)})
	}
	fitted := fitHandoffContext(hc)
	require.LessOrEqual(t, len(mustJSON(fitted)), maxHandoffContext)
	require.Less(t, len(fitted.ToolRecords), 300)
	require.Positive(t, fitted.Metadata["tool_records_dropped"])

	small := HandoffContext{Metadata: map[string]any{}, ToolRecords: hc.ToolRecords[:3]}
	require.Equal(t, small, fitHandoffContext(small), "a context within its bound is kept whole")
}

// A fork's step ceiling cannot be lifted by a takeover step past its
// step counter.
func TestForkBoundsTheTakeoverStep(t *testing.T) {
	run := &Run{Spec: registrySpec("*"), Progress: Progress{Step: 5, AgentSince: 1 << 30}}
	boundBySpec(run)
	require.Equal(t, 5, run.AgentSince)
	run.AgentSince = -3
	boundBySpec(run)
	require.Equal(t, 0, run.AgentSince)
}
