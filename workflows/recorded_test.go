package workflows

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
)

// notARecord is a recorded model reply damaged: JSON, but not a reply.
const notARecord = `"not a record"`

const replyUndecodable = " (request): %s does not decode: json: cannot unmarshal string into Go value of type workflows.replyRecord"

// editedThought is the run TestEditOfAThoughtKeepsItsCalls continues: an
// edit of request n4's thought, the request to resume.
func editedThought(t *testing.T) AgentInput {
	h := newHarness(t, editSpec(), lookupWriteConfirm(), echoTool)
	var got updateResult
	h.edit(time.Minute, signals.EditRequest{NodeID: "n4", Output: json.RawMessage(`"write it, and say so"`)}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, got.rejected)
	next := continuedInput(t, h)
	require.NotNil(t, next.Continued.Resume)
	require.Equal(t, "n4", next.Continued.Resume.Request)
	return next
}

// editedGraphCall is the run TestEditOfAGraphLLMNodesCall and the decode tests continue: an
// edit of the llm node's call, its request (n2) to resume.
func editedGraphCall(t *testing.T) (*config.Resolved, AgentInput) {
	spec := editSpec()
	spec.Agent.Graph = &config.Graph{
		Start: "L",
		Nodes: map[string]config.GraphNode{
			"L": {LLM: true},
			"H": {Tool: "hold", Args: map[string]any{}},
			"E": {End: true, Output: "†state.x.v"},
		},
		Edges: []config.GraphEdge{{From: "L", To: "H"}, {From: "H", To: "E"}},
	}
	replies := []activities.ModelReply{{Content: "look", ToolCalls: []activities.ToolCall{call("k1", "a", `{"v": "old", "_outputPath": "†state.x"}`)}}}
	h := newHarness(t, spec, replies, echoTool)
	var got updateResult
	h.edit(time.Minute, signals.EditRequest{NodeID: "n3", Output: json.RawMessage(`{"v": "edited"}`)}, &got)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "walk"})
	require.NoError(t, got.rejected)
	require.Equal(t, []string{"n4"}, got.result.(signals.EditResult).Invalidated)
	next := continuedInput(t, h)
	require.NotNil(t, next.Continued.Resume)
	require.Equal(t, "n2", next.Continued.Resume.Request)
	require.Equal(t, "L", next.Continued.GraphAt)
	return spec, next
}

// A resumed request whose recorded reply does not decode stops the run
// with a report naming the node, in both shapes; a run recorded before
// resumed it as an empty reply.
func TestAnUndecodableResumedReplyStopsTheRun(t *testing.T) {
	t.Run("free-form", func(t *testing.T) {
		next := editedThought(t)
		next.Continued.node("n4").Output = json.RawMessage(notARecord)
		h := newHarness(t, editSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
		_, err := h.run(next)
		rep := stopReport(t, err)
		require.Equal(t, "a recorded value of the run does not decode: node n4"+sprintf(replyUndecodable, "the edited model reply"), rep.Reason)
		require.Empty(t, h.requests, "no model request follows")

		next = editedThought(t)
		next.Continued.node("n4").Output = json.RawMessage(notARecord)
		h = newHarness(t, editSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
		h.before(versionDecodeStop)
		_, err = h.run(next)
		require.NoError(t, err, "a run recorded before resumed the reply as empty")
	})
	t.Run("graph", func(t *testing.T) {
		spec, next := editedGraphCall(t)
		next.Continued.node("n2").Output = json.RawMessage(notARecord)
		h := newHarness(t, spec, nil, echoTool)
		_, err := h.run(next)
		rep := stopReport(t, err)
		require.Equal(t, "a recorded value of the run does not decode: node n2"+sprintf(replyUndecodable, "the edited model reply"), rep.Reason)
		require.Empty(t, h.toolReqs, "none of its calls runs")

		spec, next = editedGraphCall(t)
		next.Continued.node("n2").Output = json.RawMessage(notARecord)
		h = newHarness(t, spec, nil, echoTool)
		h.before(versionDecodeStop)
		_, err = h.run(next)
		require.NoError(t, err, "a run recorded before resumed the reply as empty")
	})
}

// A recorded reply in the conversation that does not decode stops the
// run before its next model request, naming the node; a run recorded
// before sent the model an empty reply in its place.
func TestAnUndecodableRecordedReplyStopsTheNextRequest(t *testing.T) {
	damaged := func() AgentInput {
		next := editedThought(t)
		next.Continued.Resume = nil
		next.Continued.node("n4").Output = json.RawMessage(notARecord)
		return next
	}
	h := newHarness(t, editSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
	_, err := h.run(damaged())
	rep := stopReport(t, err)
	require.Equal(t, "a recorded value of the run does not decode: node n4"+sprintf(replyUndecodable, "the recorded model reply"), rep.Reason)
	require.Empty(t, h.requests, "the request is not sent")

	h = newHarness(t, editSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
	h.before(versionDecodeStop)
	_, err = h.run(damaged())
	require.NoError(t, err)
	require.NotEmpty(t, h.requests, "a run recorded before sent the request")
}

// An edit of a request whose recorded reply does not decode is refused,
// naming the node.
func TestAnEditOfAnUndecodableReplyIsRefused(t *testing.T) {
	next := editedThought(t)
	next.Continued.Resume = nil
	next.Continued.node("n4").Output = json.RawMessage(notARecord)
	r, err := newRunner(next.Continued)
	require.NoError(t, err)
	err = r.edit().Wanted(signals.EditRequest{NodeID: "n4", Output: json.RawMessage(`"again"`)})
	require.EqualError(t, err, "edit: node n4"+sprintf(replyUndecodable, "the recorded model reply"))
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// The readers that cannot stop the run (the handoff context, the
// conversation after a handoff) note the first record that does not
// decode, naming the node, for the run to stop on.
func TestReadersNoteAnUndecodableRecord(t *testing.T) {
	run := &Run{Spec: registrySpec("*"), Input: AgentInput{Agent: "general", Task: "where is order 7?"}, Progress: Progress{State: refs.State{}}}
	add := func(n Node) { n.ID = run.newNodeID(); run.Nodes = append(run.Nodes, n) }
	add(Node{Node: signals.Node{Kind: signals.KindTask, Status: signals.StatusCompleted}})
	add(Node{Node: signals.Node{Kind: signals.KindRequest, Status: signals.StatusCompleted, Output: json.RawMessage(notARecord)}})
	newHandoffContext(run, "wf", "out_of_scope", "order question", "look it up", true)
	require.EqualError(t, run.undecoded, "node n2"+sprintf(replyUndecodable, "the recorded model reply"))

	run.Nodes[1].Output = mustJSON(replyRecord{Content: "thinks"})
	add(Node{Node: signals.Node{Kind: signals.KindHandoff, Status: signals.StatusCompleted, Output: json.RawMessage(`[1]`)}})
	for range 2 { // a failure is not cached
		run.undecoded = nil
		buildConversation(run)
		require.EqualError(t, run.undecoded, "node n3 (handoff): the recorded handoff context does not decode: json: cannot unmarshal array into Go value of type workflows.HandoffContext")
	}
}
