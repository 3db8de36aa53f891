package workflows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A graph's human node and the ladder's human rung take a tool's approval
// block: when asks only sometimes, by: takes only signed replies of its
// groups' members, timeout and then bound the wait and decide after it.

// withPeople gives spec the people of peopleSpec: finance (ana, bob) and
// ops (carol), each with a key.
func withPeople(spec *config.Resolved) *config.Resolved {
	spec.People = peopleSpec(0).People
	return spec
}

// askedGraph is humanGraph whose node H asks as ask says.
func askedGraph(ask config.Approval) *config.Resolved {
	spec := withPeople(humanGraph())
	h := spec.Agent.Graph.Nodes["H"]
	h.Approval = ask
	spec.Agent.Graph.Nodes["H"] = h
	return spec
}

// signedReply is by's reply to human node node, signed with seed's key.
func signedReply(t *testing.T, seed byte, by, node, text string, output string) signals.ReplyRequest {
	req := signals.ReplyRequest{Text: text, Audit: signals.Audit{By: by}}
	if output != "" {
		req.Output = json.RawMessage(output)
	}
	s, err := sign.SignReply(personKey(seed), sign.ForReply(testChain, testWorkflowID, node, req), by, time.Unix(1796652000, 0))
	require.NoError(t, err)
	req.Signature = s
	return req
}

// The human node of askedGraph is n2 (the task is n1).
const humanNodeID = "n2"

func TestHumanNodeTakesOnlySignedRepliesOfItsGroup(t *testing.T) {
	h := newHarness(t, askedGraph(config.Approval{Mode: "always", People: &config.Approvers{By: []string{"ops", "finance"}}}), nil, okEcho)
	var plain, outsider, forged, carolSays updateResult
	h.replyWith(time.Minute, signals.ReplyRequest{Text: "ok", Output: json.RawMessage(`{"go":true}`), Audit: signals.Audit{By: "carol"}}, &plain)
	h.replyWith(2*time.Minute, signedReply(t, ana, "ana", humanNodeID, "ok", `{"go":true}`), &outsider)
	other := signedReply(t, carol, "carol", humanNodeID, "ok", `{"go":false}`)
	other.Output = json.RawMessage(`{"go":true}`)
	h.replyWith(3*time.Minute, other, &forged)
	var pending *signals.PendingReply
	var details string
	h.env.RegisterDelayedCallback(func() {
		pending = h.status().PendingReply
		v, err := h.env.QueryWorkflow("__temporal_workflow_metadata")
		require.NoError(t, err)
		var meta sdkpb.WorkflowMetadata
		require.NoError(t, v.Get(&meta))
		details = meta.GetCurrentDetails()
	}, 4*time.Minute)
	h.replyWith(5*time.Minute, signedReply(t, carol, "carol", humanNodeID, "ok", `{"go":true}`), &carolSays)
	res, err := h.run(AgentInput{Agent: "agent", Task: "ask"})
	require.NoError(t, err)
	require.JSONEq(t, `{"go":true}`, string(res.Output))

	require.ErrorContains(t, plain.rejected, `reply: human node n2 answers only to people of ops: the reply must carry a "signature"`)
	require.ErrorContains(t, outsider.rejected, "reply: ana is not in ops, who answer for human node n2")
	require.ErrorContains(t, forged.rejected, "the signature does not match this reply")
	require.NoError(t, carolSays.rejected)
	require.Equal(t, humanNodeID, carolSays.result.(signals.ReplyResult).NodeID)
	require.NotNil(t, pending)
	require.Equal(t, []string{"ops"}, pending.Answering, "status names who may answer now")
	require.Equal(t, "H", pending.GraphNode)
	require.Contains(t, details, "**waiting for a signed reply** (`n2`) from a member of ops", "the Web UI says a plain update will not do")
	require.Contains(t, details, "unstuck reply default-test-workflow-id --text \"...\" --as NAME --key FILE")
}

func TestHumanNodeEscalatesToItsNextGroup(t *testing.T) {
	spec := askedGraph(config.Approval{Mode: "always", People: &config.Approvers{By: []string{"ops", "finance"}},
		Deadline: config.Deadline{Timeout: config.Duration(time.Hour), Then: config.ThenEscalate}})
	h := newHarness(t, spec, nil, okEcho)
	var early, late updateResult
	h.replyWith(30*time.Minute, signedReply(t, ana, "ana", humanNodeID, "ok", `{"by":"ana"}`), &early)
	var pending *signals.PendingReply
	h.env.RegisterDelayedCallback(func() { pending = h.status().PendingReply }, 100*time.Minute)
	h.replyWith(110*time.Minute, signedReply(t, ana, "ana", humanNodeID, "ok", `{"by":"ana"}`), &late)
	res, err := h.run(AgentInput{Agent: "agent", Task: "ask"})
	require.NoError(t, err)
	require.ErrorContains(t, early.rejected, "ana is not in ops", "finance is asked only once ops's hour passed")
	require.NoError(t, late.rejected)
	require.JSONEq(t, `{"by":"ana"}`, string(res.Output))
	require.NotNil(t, pending)
	require.Equal(t, []string{"ops", "finance"}, pending.Answering)
	require.Equal(t, 1, pending.Escalations)
	require.True(t, pending.Overdue, "past half of finance's hour")
}

func TestHumanNodeDeadlineDecides(t *testing.T) {
	for _, tc := range []struct {
		then   string
		wantOK bool
	}{{config.ThenApprove, true}, {config.ThenReject, false}} {
		t.Run(tc.then, func(t *testing.T) {
			spec := askedGraph(config.Approval{Mode: "always", Deadline: config.Deadline{Timeout: config.Duration(10 * time.Minute), Then: tc.then}})
			spec.Agent.Graph.Nodes["E"] = config.GraphNode{End: true}
			spec.Agent.Graph.Nodes["F"] = config.GraphNode{End: true, Output: "†state.missing"}
			spec.Agent.Graph.Edges = []config.GraphEdge{{From: "H", To: "E", When: "ok"}, {From: "H", To: "F"}}
			h := newHarness(t, spec, nil, okEcho)
			_, err := h.run(AgentInput{Agent: "agent", Task: "ask"})
			human := nodesByKind(h.trace(), signals.KindHuman)
			require.Len(t, human, 1)
			if tc.wantOK {
				require.NoError(t, err)
				require.Equal(t, signals.StatusCompleted, human[0].Status)
				require.JSONEq(t, `{"by_deadline":true,"decision":"approve","timeout":"10m0s"}`, string(human[0].Output))
				return
			}
			require.Error(t, err, "the !ok edge leads to an end whose output is missing")
			require.Equal(t, signals.StatusFailed, human[0].Status)
			require.Contains(t, human[0].Error, "no reply within its approval's timeout (10m0s)")
		})
	}
}

func TestHumanNodeAsksOnlyWhenItsConditionHolds(t *testing.T) {
	spec := askedGraph(config.Approval{Mode: "always", When: "input.risk > 3"})
	spec.Agent.Graph.Nodes["E"] = config.GraphNode{End: true}
	h := newHarness(t, spec, nil, okEcho)
	_, err := h.run(AgentInput{Agent: "agent", Task: "ask", Input: json.RawMessage(`{"risk": 1}`)})
	require.NoError(t, err, "no one is asked: the run does not wait")
	human := nodesByKind(h.trace(), signals.KindHuman)
	require.Len(t, human, 1)
	require.Equal(t, signals.StatusCompleted, human[0].Status)
	require.Equal(t, "approval not asked: input.risk > 3 is false", human[0].Note)

	h = newHarness(t, spec, nil, okEcho)
	h.reply(time.Minute, "fine", &updateResult{})
	_, err = h.run(AgentInput{Agent: "agent", Task: "ask", Input: json.RawMessage(`{"risk": 7}`)})
	require.NoError(t, err)
	human = nodesByKind(h.trace(), signals.KindHuman)
	require.Len(t, human, 1)
	var args struct{ Why string }
	require.NoError(t, json.Unmarshal(human[0].Args, &args))
	require.Equal(t, "graph node H (approval asked: input.risk > 3 is true)", args.Why, "the wait says why it asks")
}

// rungAsking is stubbornRung whose human rung asks as ask says.
func rungAsking(ask config.Approval) *config.Resolved {
	spec := withPeople(stubbornRung())
	spec.Agent.Policies.HumanApproval = ask
	return spec
}

func TestHumanRungTakesOnlySignedRepliesOfItsGroup(t *testing.T) {
	book := call("k", "book_flight", `{"flight_id":"UA1","passengers":1}`)
	h := newHarness(t, rungAsking(config.Approval{Mode: "always", People: &config.Approvers{By: []string{"ops"}}}),
		repeat(3, book, activities.ModelReply{Content: "booked another way"}), failingTool)
	var plain, carolSays updateResult
	h.replyWith(time.Minute, signals.ReplyRequest{Text: "Try the 9am flight.", Audit: signals.Audit{By: "carol"}}, &plain)
	var node string
	h.env.RegisterDelayedCallback(func() {
		p := h.status().PendingReply
		require.NotNil(t, p)
		node = p.NodeID
		h.env.UpdateWorkflow(signals.Reply, "carol", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { carolSays.rejected = err }, OnAccept: func() {},
			OnComplete: func(v any, err error) { carolSays.result, carolSays.err = v, err },
		}, signedReply(t, carol, "carol", node, "Try the 9am flight.", ""))
	}, 2*time.Minute)
	res, err := h.run(AgentInput{Agent: "travel", Task: "book"})
	require.NoError(t, err)
	require.JSONEq(t, `"booked another way"`, string(res.Output))
	require.ErrorContains(t, plain.rejected, "answers only to people of ops")
	require.NoError(t, carolSays.rejected)
	require.Equal(t, []string{"human"}, actions(res.Escalations))
}

func TestHumanRungAsksOnlyWhenItsConditionHolds(t *testing.T) {
	book := call("k", "book_flight", `{"flight_id":"UA1","passengers":1}`)
	h := newHarness(t, rungAsking(config.Approval{Mode: "always", When: "input.vip == true"}),
		repeat(3, book, activities.ModelReply{Content: "x"}), failingTool)
	_, err := h.run(AgentInput{Agent: "travel", Task: "book", Input: json.RawMessage(`{"vip": false}`)})
	rep := stopReport(t, err)
	require.Equal(t, []string{"human", "stop"}, actions(rep.Escalations), "no one asked: the ladder climbs on")
	require.Empty(t, nodesByKind(h.trace(), signals.KindHuman), "nobody was waited for")
	esc := nodesByKind(h.trace(), signals.KindEscalation)
	require.NotEmpty(t, esc)
	require.Contains(t, string(esc[0].Output), "approval not asked: input.vip == true is false")
}

// A human node's escalation is carried when the run continues as new
// while it waits: the next generation still asks the group it had
// escalated to.
func TestHumanNodeEscalationIsCarriedAcrossContinueAsNew(t *testing.T) {
	spec := func() *config.Resolved {
		return askedGraph(config.Approval{Mode: "always", People: &config.Approvers{By: []string{"ops", "finance"}},
			Deadline: config.Deadline{Timeout: config.Duration(time.Hour), Then: config.ThenEscalate}})
	}
	h := newHarness(t, spec(), nil, okEcho)
	h.env.RegisterDelayedCallback(func() {
		h.env.SetContinueAsNewSuggested(true)
		h.env.SignalWorkflow(signals.Approve, map[string]any{"call_id": "n99", "decision": "approve", "by": "someone"})
	}, 70*time.Minute)
	_, _ = h.run(AgentInput{Agent: "agent", Task: "ask"})
	next := continuedInput(t, h)
	w := next.Continued.Resume.Waiting
	require.NotNil(t, w)
	require.Equal(t, humanNodeID, w.Human)
	require.Equal(t, 1, w.Escalations[humanNodeID], "finance is asked")

	h2 := newHarness(t, spec(), nil, okEcho)
	var got updateResult
	h2.replyWith(time.Minute, signedReply(t, ana, "ana", humanNodeID, "ok", `{"by":"ana"}`), &got)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, got.rejected, "ana of finance may answer in the next generation")
	require.JSONEq(t, `{"by":"ana"}`, string(res.Output))
}
