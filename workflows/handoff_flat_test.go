package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
)

// chainRun is a run handed along a chain of hops agents, each making four
// calls with 1 KiB of arguments before it hands over: the handoff nodes'
// contexts built as the workflow builds them, nested (before
// handoff-flat) or flat.
func chainRun(hops int, flat bool) *Run {
	run := &Run{Spec: testSpec(), Progress: Progress{State: map[string]any{}}}
	run.Input.Task = "a question for the right desk"
	id := 0
	add := func(n Node) *Node {
		id++
		n.ID = fmt.Sprintf("n%d", id)
		run.Nodes = append(run.Nodes, n)
		return &run.Nodes[len(run.Nodes)-1]
	}
	add(Node{Node: signals.Node{Kind: signals.KindTask, Status: signals.StatusCompleted}})
	args := fmt.Sprintf(`{"note": %q}`, strings.Repeat("k", 1<<10))
	for hop := range hops {
		if hop == 0 {
			// A person told the first agent something: the last agent
			// must still read it.
			add(Node{Node: signals.Node{Kind: signals.KindHuman, Status: signals.StatusCompleted,
				Output: mustJSON(signals.ReplyRequest{Text: "use the blue form"})}})
		}
		for c := range 4 {
			callID := fmt.Sprintf("c%d-%d", hop, c)
			add(Node{Node: signals.Node{Kind: signals.KindRequest, Status: signals.StatusCompleted,
				Output: mustJSON(replyRecord{ToolCalls: []activities.ToolCall{{ID: callID, Name: "search_flights", Args: args}}})}})
			add(Node{Node: signals.Node{Kind: signals.KindCall, Status: signals.StatusCompleted, Tool: "search_flights",
				Args: []byte(args), Output: []byte(`{"ok":true}`)}, ModelCallID: callID})
		}
		h := add(Node{Node: signals.Node{Kind: signals.KindHandoff, Status: signals.StatusPending}})
		hc := newHandoffContext(run, "wf", "out_of_scope", fmt.Sprintf("hop %d", hop), "", flat)
		h.Status, h.Output = signals.StatusCompleted, mustJSON(fitHandoffContext(hc))
	}
	return run
}

// A chain of handoffs does not nest each earlier context in the next, and
// each handoff node keeps the calls since the one before and a reference
// to it, not a second copy of the run's (version handoff-flat): what 50
// hops carry grows with the calls made, not with hops x calls. The
// message the last agent reads still has every call of the run.
func TestHandoffContextsDoNotNest(t *testing.T) {
	const hops = 50
	size := func(run *Run) (total, last int) {
		for _, n := range run.Nodes {
			if n.Kind == signals.KindHandoff {
				total += len(n.Output)
				last = len(n.Output)
			}
		}
		return total, last
	}
	nested, flat := chainRun(hops, false), chainRun(hops, true)
	nestedTotal, nestedLast := size(nested)
	flatTotal, flatLast := size(flat)
	t.Logf("%d handoffs, 4 calls of 1 KiB each between them: handoff nodes carry %d KiB nested, %d KiB flat (%.1fx less); the last node %d KiB nested, %d KiB flat",
		hops, nestedTotal>>10, flatTotal>>10, float64(nestedTotal)/float64(flatTotal), nestedLast>>10, flatLast>>10)
	require.Less(t, flatTotal*10, nestedTotal, "nesting carried each earlier context again")
	require.Less(t, flatLast, 16<<10, "a node keeps the calls since the last handoff")

	for _, n := range flat.Nodes {
		if n.Kind == signals.KindHandoff {
			require.NotContains(t, string(n.Output), "The handoff context (JSON", "node %s nests an earlier context", n.ID)
		}
	}
	lastNode := &flat.Nodes[flat.lastHandoff()]
	var stored HandoffContext
	require.NoError(t, json.Unmarshal(lastNode.Output, &stored))
	require.Equal(t, 4, len(stored.ToolRecords), "the node: the calls since the last handoff")
	require.NotEmpty(t, stored.Earlier)
	require.Contains(t, stored.Conversation[1].Content, "That handoff's context is not repeated here")
	require.Contains(t, stored.Conversation[1].Content, "Summary: hop 48", "the earlier handoff's brief stays")

	msg := handoffMessage(flat, lastNode)
	_, body, ok := strings.Cut(msg.Content, "tool_records, state):\n")
	require.True(t, ok)
	var read HandoffContext
	require.NoError(t, json.Unmarshal([]byte(body), &read))
	require.Equal(t, 4*hops, len(read.ToolRecords), "the target reads every call of the run")
	require.Equal(t, "n4", read.ToolRecords[0].Node, "oldest first (n1 is the task, n2 a person's reply, n3 the first request)")
	require.Equal(t, hops-1, len(read.EarlierHandoffs), "each earlier handoff's brief")
	require.Equal(t, "hop 0", read.EarlierHandoffs[0].Summary)
	require.Equal(t, []EarlierNote{{Agent: "travel", Content: "A person replied: use the blue form"}}, read.EarlierNotes,
		"what a person told the first agent reaches the last")
	require.Equal(t, 4*hops, len(read.ReasoningTrace))
	require.Empty(t, read.Earlier)
	require.Equal(t, msg, handoffMessage(flat, lastNode), "the same message at every step (cached)")
	require.Less(t, len(msg.Content), maxHandoffContext+4<<10, "bounded as a whole context")
}

// A reference the trace does not hold, or a cycle of references (a forged
// or damaged trace), ends the chain instead of failing or looping.
func TestHandoffChainEndsAtABrokenReference(t *testing.T) {
	run := chainRun(3, true)
	h := run.lastHandoff()
	var hc HandoffContext
	require.NoError(t, json.Unmarshal(run.Nodes[h].Output, &hc))
	require.Equal(t, 12, len(expandHandoffContext(run, hc).ToolRecords), "three hops of four calls")
	missing := hc
	missing.Earlier = "n-missing"
	require.Equal(t, 4, len(expandHandoffContext(run, missing).ToolRecords), "a reference the trace does not hold ends the chain")
	// The node refers to itself: a cycle ends where it comes back.
	var self HandoffContext
	require.NoError(t, json.Unmarshal(run.Nodes[h].Output, &self))
	self.Earlier = run.Nodes[h].ID
	run.Nodes[h].Output = mustJSON(self)
	require.Equal(t, 8, len(expandHandoffContext(run, self).ToolRecords), "the context, then its node once")
}
