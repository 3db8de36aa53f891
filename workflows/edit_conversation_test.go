package workflows

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// The model API refuses a conversation where an assistant's tool call is
// not answered by exactly one tool message right after it, or where a tool
// message answers no call of the assistant message before it. Whatever a
// person edits, every request the run sends must keep that shape.

// checkToolPairs says what is wrong with a conversation's calls and tool
// messages ("" when nothing).
func checkToolPairs(msgs []activities.Message) string {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == "tool" {
			return fmt.Sprintf("message %d: a tool message (%s) that follows no assistant call", i, m.ToolCallID)
		}
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		want := map[string]bool{}
		for _, tc := range m.ToolCalls {
			if want[tc.ID] {
				return fmt.Sprintf("message %d: call id %s twice", i, tc.ID)
			}
			want[tc.ID] = true
		}
		got := map[string]bool{}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == "tool"; j++ {
			id := msgs[j].ToolCallID
			if !want[id] {
				return fmt.Sprintf("message %d: tool message for %s, which message %d did not call", j, id, i)
			}
			if got[id] {
				return fmt.Sprintf("message %d: a second tool message for %s", j, id)
			}
			got[id] = true
		}
		for id := range want {
			if !got[id] {
				return fmt.Sprintf("message %d: call %s has no tool message right after it (next: %+v)", i, id, msgs[min(j, len(msgs)-1)])
			}
		}
		i = j - 1
	}
	return ""
}

// conversations rebuilds the whole conversation of each request a harness
// saw (a request carries only what the model activity lacks).
// The activity keeps what it sent and the model's reply.
func conversations(reqs []activities.ModelRequest, replies []activities.ModelReply) [][]activities.Message {
	var out [][]activities.Message
	var sent []activities.Message
	for i, r := range reqs {
		conv := append(append([]activities.Message{}, sent[:min(r.Base, len(sent))]...), r.Delta...)
		out = append(out, conv)
		reply := activities.ModelReply{Content: "done"}
		if i < len(replies) {
			reply = replies[i]
		}
		sent = append(conv, activities.Message{Role: "assistant", Content: reply.Content, ToolCalls: reply.ToolCalls})
	}
	return out
}

func pairSpec() *config.Resolved {
	spec := editSpec()
	spec.Agent.Policies.Loop = config.LoopPolicy{Window: 16, Repeats: 3}
	spec.Agent.Policies.Escalation = []string{"retry", "human", "stop"}
	return spec
}

// pairReplies: a step of three calls (b reads a's write), a loop of c that
// climbs to retry then to a person, then hold waits for approval.
func pairReplies() []activities.ModelReply {
	out := []activities.ModelReply{{Content: "first", ToolCalls: []activities.ToolCall{
		call("ka", "a", `{"v": "old", "_outputPath": "†state.x"}`),
		call("kb", "b", `{"got": "†state.x"}`),
		call("kc", "c", `{"q": 1}`),
	}}}
	for i := 0; i < 6; i++ {
		out = append(out, activities.ModelReply{ToolCalls: []activities.ToolCall{call(fmt.Sprintf("kl%d", i), "c", `{"q": 2}`)}})
	}
	return append(out, activities.ModelReply{ToolCalls: []activities.ToolCall{
		call("kw", "w", `{"order": 7}`), call("kh", "hold", `{}`),
	}})
}

func pairRun(t *testing.T, edit *signals.EditRequest, at time.Duration, got *updateResult) *harness {
	h := newHarness(t, pairSpec(), pairReplies(), echoTool)
	var replied updateResult
	h.reply(10*time.Minute, "go on", &replied)
	if edit != nil {
		h.edit(at, *edit, got)
	}
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	return h
}

func TestEveryEditKeepsEachCallAnsweredOnce(t *testing.T) {
	base := pairRun(t, nil, 0, nil)
	tr := base.trace()
	for i, c := range conversations(base.requests, pairReplies()) {
		require.Empty(t, checkToolPairs(c), "unedited request %d", i)
	}
	var edits []signals.EditRequest
	for _, n := range tr.Nodes {
		if n.Kind == signals.KindCall && n.Tool == "hold" {
			break // from here on the run waited for approval, where the edits come
		}
		switch n.Kind {
		case signals.KindTask:
			edits = append(edits, signals.EditRequest{NodeID: n.ID, Output: json.RawMessage(`"another task"`)})
		case signals.KindRequest:
			edits = append(edits,
				signals.EditRequest{NodeID: n.ID, Output: json.RawMessage(`"another thought"`)},
				signals.EditRequest{NodeID: n.ID, Output: json.RawMessage(`{"tool_calls": [{"id": "kn", "name": "c", "args": {"q": 5}}]}`)},
				signals.EditRequest{NodeID: n.ID, Output: json.RawMessage(`{"content": "c only", "tool_calls": [{"id": "kc", "name": "c", "args": "{\"q\": 1}"}]}`)},
			)
		case signals.KindCall:
			edits = append(edits,
				signals.EditRequest{NodeID: n.ID, Output: json.RawMessage(`{"v": "new"}`)},
				signals.EditRequest{NodeID: n.ID, Args: json.RawMessage(`{"q": 3}`)},
			)
		case signals.KindHuman:
			edits = append(edits, signals.EditRequest{NodeID: n.ID, Output: json.RawMessage(`"stop looping"`)})
		}
	}
	require.NotEmpty(t, edits)
	applied := 0
	// At 5 minutes a person is asked (the human rung); at 30 the last
	// step's hold waits for approval.
	for _, at := range []time.Duration{5 * time.Minute, 30 * time.Minute} {
		for _, e := range edits {
			name := fmt.Sprintf("%s %s %s%s", at, e.NodeID, e.Output, e.Args)
			t.Run(name, func(t *testing.T) {
				var got updateResult
				h := pairRun(t, &e, at, &got)
				if got.rejected != nil || got.err != nil {
					// At 5 minutes the human rung's node still waits and the
					// later nodes do not exist yet: refused, and said why.
					require.NoError(t, got.err)
					require.Regexp(t, `is pending: edit it once it has finished|is not a node of this run`, got.rejected.Error())
					return
				}
				applied++
				next := continuedInput(t, h)
				h2 := newHarness(t, pairSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
				_, err := h2.run(next)
				if err != nil {
					t.Logf("gen 1 ended with %v", err)
				}
				for i, c := range conversations(h2.requests, nil) {
					require.Empty(t, checkToolPairs(c), "request %d after the edit: %s", i, dump(c))
				}
			})
		}
	}
	require.Greater(t, applied, 20)
}

func dump(msgs []activities.Message) string {
	s := ""
	for i, m := range msgs {
		ids := ""
		for _, tc := range m.ToolCalls {
			ids += tc.ID + " "
		}
		s += fmt.Sprintf("\n  %d %s %s%s %.80q", i, m.Role, m.ToolCallID, ids, m.Content)
	}
	return s
}

// A call of the edited step that waited for approval when the edit came
// had not finished: it is asked again after the edit (docs/approvals-and-edits.md "What runs
// again": "those that had not finished, run again"), not kept with the
// error the interruption gave it.
func TestAnInterruptedSiblingIsAskedAgain(t *testing.T) {
	h := newHarness(t, editSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("ka", "a", `{"q": 1}`), call("kh", "hold", `{"x": 1}`)}},
	}, echoTool)
	var got updateResult
	h.edit(30*time.Minute, signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"q": "edited"}`)}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, got.rejected)
	require.NoError(t, got.err)
	require.Equal(t, []string{"n4"}, got.result.(signals.EditResult).Invalidated, "hold (n4) had not run")
	next := continuedInput(t, h)

	h2 := newHarness(t, editSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
	var st signals.Status
	h2.env.RegisterDelayedCallback(func() { st = h2.status() }, time.Minute)
	var approved updateResult
	h2.approve(2*time.Minute, signals.ApproveRequest{CallID: "n6", Decision: "approve"}, &approved)
	_, err := h2.run(next)
	require.NoError(t, err)
	require.Len(t, st.PendingApprovals, 1, "hold waits for approval again")
	require.Equal(t, "hold", st.PendingApprovals[0].Tool)
	require.NoError(t, approved.rejected)
	require.Equal(t, []string{"hold"}, toolNamesOf(h2.toolReqs))
	for _, m := range h2.requests[0].Delta {
		require.NotContains(t, m.Content, interruptedText)
	}
}

// The same for a call that had not started when the edit came: it waited
// on a sibling's result (a †state reference) that was still waiting for
// approval.
func TestAnInterruptedCallThatNeverStartedRunsAgain(t *testing.T) {
	h := newHarness(t, editSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{
			call("ka", "a", `{"q": 1}`),
			call("kh", "hold", `{"x": 1, "_outputPath": "†state.h"}`),
			call("kb", "b", `{"h": "†state.h"}`),
		}},
	}, echoTool)
	var got updateResult
	h.edit(30*time.Minute, signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"q": "edited"}`)}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, got.rejected)
	require.NoError(t, got.err)
	require.Equal(t, []string{"n4", "n5"}, got.result.(signals.EditResult).Invalidated, "neither hold nor b had run")
}
