package workflows

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A conversation answers, waits in awaiting_user for the next message,
// takes it as the next task and answers again; idle, it completes with
// its last output.

func chatSpec(doubleText string) *config.Resolved {
	spec := testSpec()
	spec.Agent.Conversation = &config.Conversation{IdleTimeout: config.Duration(time.Hour)}
	spec.Agent.DoubleText = doubleText
	return spec
}

// message sends the message update after a while; each gets its own id.
func (h *harness) message(after time.Duration, text string, got *updateResult) {
	h.env.RegisterDelayedCallback(func() {
		h.env.UpdateWorkflow(signals.Message, "message-"+after.String(), &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { got.rejected = err },
			OnAccept:   func() {},
			OnComplete: func(v any, err error) { got.result, got.err, got.completed = v, err, true },
		}, signals.MessageRequest{Text: text, Audit: signals.Audit{By: "ana"}})
	}, after)
}

// userMessages are the user messages a model request sent.
func userMessages(req activities.ModelRequest) []string { return userTexts(req.Delta) }

// userTexts are the contents of the user messages among msgs.
func userTexts(msgs []activities.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestConversationTakesTheNextMessageAndEndsIdleWithItsLastOutput(t *testing.T) {
	h := newHarness(t, chatSpec(config.DoubleTextEnqueue), []activities.ModelReply{
		{Content: "Where to?"}, {Content: "Paris it is."},
	}, okTool)
	var msg updateResult
	var waiting, working signals.Status
	h.env.RegisterDelayedCallback(func() { waiting = h.status() }, 5*time.Minute)
	h.message(10*time.Minute, "Paris, please", &msg)
	h.env.RegisterDelayedCallback(func() { working = h.status() }, 10*time.Minute+time.Second)
	res, err := h.run(AgentInput{Agent: "travel", Task: "book a trip"})
	require.NoError(t, err)
	require.NoError(t, msg.rejected)
	require.NoError(t, msg.err)
	require.JSONEq(t, `{"queued": 1}`, string(mustJSON(msg.result)))
	require.Equal(t, signals.PhaseAwaitingUser, waiting.Phase)
	require.Equal(t, signals.PhaseAwaitingUser, working.Phase, "idle again once it answered")
	require.True(t, waiting.Conversation, "the status says the run is a conversation")
	require.Equal(t, "completed", string(res.Status))
	require.JSONEq(t, `"Paris it is."`, string(res.Output), "the last output")

	require.Len(t, h.requests, 2)
	require.Equal(t, []string{"Paris, please"}, userMessages(h.requests[1]), "the message joins the conversation")
	var outputs, tasks []signals.Node
	for _, n := range h.trace().Nodes {
		switch n.Kind {
		case signals.KindOutput:
			outputs = append(outputs, n)
		case signals.KindTask:
			tasks = append(tasks, n)
		}
	}
	require.Len(t, outputs, 2, "each turn's output is in the trace")
	require.Len(t, tasks, 3, "the task, the message, the wait that ended idle")
	require.JSONEq(t, `{"message": "Paris, please", "by": "ana"}`, string(tasks[1].Args))
	require.Equal(t, signals.StatusCompleted, tasks[1].Status)
	require.Equal(t, []string{outputs[0].ID}, tasks[1].Parents)
	require.Equal(t, signals.StatusSkipped, tasks[2].Status)
	require.Contains(t, tasks[2].Error, "no message within idle_timeout (1h0m0s)")
}

// enqueue: a message while the run works joins the conversation after the
// current step, before the next model request.
func TestConversationMessageWhileWorkingJoinsAfterTheStep(t *testing.T) {
	h := newHarness(t, chatSpec(config.DoubleTextEnqueue), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("c1", "search_flights", `{"to":"PAR"}`)}},
		{Content: "Found UA1, and noted the window seat."},
	}, okTool)
	h.modelTakes = time.Minute
	var msg updateResult
	h.message(30*time.Second, "a window seat, please", &msg)
	res, err := h.run(AgentInput{Agent: "travel", Task: "find a flight"})
	require.NoError(t, err)
	require.NoError(t, msg.rejected)
	require.JSONEq(t, `"Found UA1, and noted the window seat."`, string(res.Output))
	require.Len(t, h.requests, 2)
	delta := h.requests[1].Delta
	require.Len(t, delta, 2)
	require.Equal(t, "tool", delta[0].Role, "the step's call answered first")
	require.Equal(t, "user", delta[1].Role)
	require.Equal(t, "a window seat, please", delta[1].Content)
}

// reject: a message while the run works is refused with the reason; one
// while it waits is taken.
func TestConversationRejectRefusesAMessageWhileWorking(t *testing.T) {
	h := newHarness(t, chatSpec(config.DoubleTextReject), []activities.ModelReply{
		{Content: "Where to?"}, {Content: "Rome it is."},
	}, okTool)
	h.modelTakes = time.Minute
	var early, later updateResult
	h.message(30*time.Second, "Paris", &early)
	h.message(10*time.Minute, "Rome", &later)
	res, err := h.run(AgentInput{Agent: "travel", Task: "book a trip"})
	require.NoError(t, err)
	require.ErrorContains(t, early.rejected, "double_text is reject")
	require.NoError(t, later.rejected)
	require.JSONEq(t, `"Rome it is."`, string(res.Output))
	require.Equal(t, []string{"Rome"}, userMessages(h.requests[1]))
}

// A run that is not a conversation refuses a message, naming why.
func TestMessageToARunThatIsNotAConversationIsRefused(t *testing.T) {
	h := newHarness(t, testSpec(), []activities.ModelReply{{Content: "done"}}, okTool)
	h.modelTakes = time.Minute
	var got updateResult
	var st signals.Status
	h.message(30*time.Second, "hello", &got)
	h.env.RegisterDelayedCallback(func() { st = h.status() }, 30*time.Second)
	_, err := h.run(AgentInput{Agent: "travel", Task: "book"})
	require.NoError(t, err)
	require.ErrorContains(t, got.rejected, "agent travel is not a conversation")
	require.Equal(t, "travel", st.Agent)
	require.False(t, st.Conversation, "the status does not call it a conversation")
}

// waitingChat is the input of the generation a conversation waiting for
// its next message continues as new into, when Temporal suggests it.
func waitingChat(t *testing.T) AgentInput {
	h := newHarness(t, chatSpec(config.DoubleTextEnqueue), []activities.ModelReply{{Content: "Where to?"}}, okTool)
	h.suggestWhileWaiting()
	_, _ = h.run(AgentInput{Agent: "travel", Task: "book a trip"})
	return continuedInput(t, h)
}

// A conversation waiting for its next message continues as new when
// Temporal suggests it; the next generation waits at the same node with
// the same deadline, and takes the message there.
func TestConversationContinuesAsNewWhileItWaits(t *testing.T) {
	next := waitingChat(t)
	run := next.Continued
	waitingAt := run.Turn.Waiting
	require.NotEmpty(t, waitingAt)
	require.Equal(t, signals.StatusPending, statuses(run)[waitingAt])
	require.NotNil(t, run.Resume)
	require.Equal(t, run.node(waitingAt).At, run.Resume.Waiting.Since[waitingAt].UTC(), "the wait keeps its start: idle_timeout counts from there")

	h2 := newHarness(t, chatSpec(config.DoubleTextEnqueue), []activities.ModelReply{{Content: "Paris it is."}}, okTool)
	var msg updateResult
	h2.message(10*time.Minute, "Paris", &msg)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, msg.rejected)
	require.JSONEq(t, `"Paris it is."`, string(res.Output))
	landed := false
	for _, n := range h2.trace().Nodes {
		if n.ID == waitingAt {
			landed = true
			require.Equal(t, signals.StatusCompleted, n.Status, "the message landed at the node the first generation waited at")
			require.JSONEq(t, `{"message": "Paris", "by": "ana"}`, string(n.Args))
		}
	}
	require.True(t, landed)
	require.Equal(t, []string{"Paris"}, userMessages(h2.requests[0]))
}

// A graph conversation ends each turn at its end node and walks from its
// start node again for the next message.
func TestGraphConversationWalksAgainForTheNextMessage(t *testing.T) {
	spec := llmGraph(chatSpec(config.DoubleTextEnqueue), 1)
	spec.Agent.Graph.Edges = []config.GraphEdge{{From: "L", To: "E"}}
	h := newHarness(t, spec, []activities.ModelReply{{Content: "Where to?"}, {Content: "Paris it is."}}, okTool)
	var msg updateResult
	h.message(10*time.Minute, "Paris", &msg)
	res, err := h.run(AgentInput{Agent: "travel", Task: "book a trip"})
	require.NoError(t, err)
	require.NoError(t, msg.rejected)
	require.Equal(t, "completed", string(res.Status))
	require.Len(t, h.requests, 2, "L visited once a turn")
	require.Equal(t, []string{"Paris"}, userMessages(h.requests[1]))
	outputs := 0
	for _, n := range h.trace().Nodes {
		if n.Kind == signals.KindOutput {
			outputs++
			require.Equal(t, "E", n.GraphNode)
		}
	}
	require.Equal(t, 2, outputs)
}

// chatGraph makes spec the graph twin of a free-form conversation: its
// llm node L is asked again until the model's final_output ends the turn.
func chatGraph(spec *config.Resolved) *config.Resolved {
	spec.Agent.Graph = &config.Graph{
		Start: "L",
		Nodes: map[string]config.GraphNode{"L": {LLM: true}, "E": {End: true}},
		Edges: []config.GraphEdge{{From: "L", To: "E", When: "state.done == true"}, {From: "L", To: "L"}},
	}
	return spec
}

// eachShape runs test on a conversation of double_text in each run shape.
func eachShape(t *testing.T, doubleText string, test func(t *testing.T, spec *config.Resolved)) {
	t.Run("free-form", func(t *testing.T) { test(t, chatSpec(doubleText)) })
	t.Run("graph", func(t *testing.T) { test(t, chatGraph(chatSpec(doubleText))) })
}

// llmNode is the graph node a model request of spec's run is tagged with.
func llmNode(spec *config.Resolved) string {
	if spec.Agent.Graph != nil {
		return "L"
	}
	return ""
}

// answerRome is the reply that ends a cut-in run's turn.
var answerRome = activities.ModelReply{ToolCalls: []activities.ToolCall{call("f", "final_output", `{"answer": "Rome, then."}`)}}

// cutInReplies: the first request asks for a search, the second is cut
// short by the message (its reply, "never read", is never taken), the
// third answers with the message in the conversation.
func cutInReplies() []activities.ModelReply {
	return []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("c1", "search_flights", `{"to":"PAR"}`)}},
		{Content: "never read"},
		answerRome,
	}
}

// cutInRun runs spec's conversation on replies: the message comes while
// the second request is asked, and the run answers it. before names the
// changes the run was recorded before.
func cutInRun(t *testing.T, spec *config.Resolved, replies []activities.ModelReply, before ...string) *harness {
	h := newHarness(t, spec, replies, okTool)
	if len(before) > 0 {
		h.before(before...)
	}
	h.modelTakes = time.Minute
	var msg updateResult
	h.message(90*time.Second, "actually, Rome", &msg)
	res, err := h.run(AgentInput{Agent: "travel", Task: "find a flight"})
	require.NoError(t, err)
	require.NoError(t, msg.rejected)
	require.JSONEq(t, `{"answer": "Rome, then."}`, string(res.Output))
	require.Len(t, h.requests, len(replies))
	return h
}

// interrupt: a message while the model is asked abandons the request, and
// joins the conversation at once; the step's call stays. In a graph, the
// llm node's request is cut and the node asked again.
func TestConversationInterruptAbandonsTheRequestInFlight(t *testing.T) {
	eachShape(t, config.DoubleTextInterrupt, func(t *testing.T, spec *config.Resolved) {
		h := cutInRun(t, spec, cutInReplies())
		require.Equal(t, []string{"actually, Rome"}, userMessages(h.requests[2]))
		tr := h.trace()
		searches := nodesOfCallsTo(tr, "search_flights")
		require.Len(t, searches, 1)
		require.Equal(t, signals.StatusCompleted, searches[0].Status, "the step's call stays")
		requests := nodesOfKind(tr, signals.KindRequest)
		require.Len(t, requests, 3)
		require.Equal(t, signals.StatusFailed, requests[1].Status)
		require.Equal(t, "abandoned: the user sent a message (double_text: interrupt)", requests[1].Error)
		require.Equal(t, llmNode(spec), requests[1].GraphNode)
	})
}

// rollback: as interrupt, and what the turn did since its message is
// invalidated: the model reads the task, then the new message. A graph
// walks from its start node again.
func TestConversationRollbackInvalidatesTheTurn(t *testing.T) {
	eachShape(t, config.DoubleTextRollback, func(t *testing.T, spec *config.Resolved) {
		h := cutInRun(t, spec, cutInReplies())
		third := h.requests[2]
		require.Zero(t, third.Base, "the conversation shrank: it is sent whole")
		require.Equal(t, []string{"find a flight", "actually, Rome"}, userMessages(third))
		for _, m := range third.Delta {
			require.NotEqual(t, "tool", m.Role, "the rolled-back call is not in the conversation")
		}
		tr := h.trace()
		requests := nodesOfKind(tr, signals.KindRequest)
		require.Len(t, requests, 3)
		for _, n := range slices.Concat(requests[:2], nodesOfCallsTo(tr, "search_flights")) {
			require.Equal(t, signals.StatusInvalidated, n.Status, "%s of the turn is invalidated", n.ID)
		}
		require.Equal(t, signals.StatusCompleted, requests[2].Status)
		require.Equal(t, llmNode(spec), requests[2].GraphNode)
	})
}

// rebookReplies: the model books UA1, is cut short by the message while
// asked after it, books UA1 again and answers.
func rebookReplies() []activities.ModelReply {
	book := func(id string) activities.ModelReply {
		return activities.ModelReply{ToolCalls: []activities.ToolCall{call(id, "book_flight", `{"flight_id": "UA1"}`)}}
	}
	return []activities.ModelReply{book("k1"), {Content: "never read"}, book("k3"), answerRome}
}

// writeSpec is spec with book_flight a write.
func writeSpec(spec *config.Resolved) *config.Resolved {
	for i := range spec.Tools {
		if spec.Tools[i].Name == "book_flight" {
			spec.Tools[i].Effect = config.EffectWrite
		}
	}
	return spec
}

// interrupt keeps what the turn did, and the model, asked again with the
// message, books the same again: the effect ledger answers it with the
// recorded result, so the write is made once, in both shapes.
func TestConversationInterruptMakesNoWriteTwice(t *testing.T) {
	eachShape(t, config.DoubleTextInterrupt, func(t *testing.T, spec *config.Resolved) {
		h := cutInRun(t, writeSpec(spec), rebookReplies())
		require.Equal(t, []string{"book_flight"}, toolNamesOf(h.toolReqs), "the write ran once")
		books := nodesOfCallsTo(h.trace(), "book_flight")
		require.Len(t, books, 2)
		require.Equal(t, signals.StatusCompleted, books[0].Status)
		require.Equal(t, books[0].ID, books[1].ReusedFrom, "the ledger answered the same write")
		fourth := h.requests[3].Delta
		require.Equal(t, "tool", fourth[0].Role)
		require.Equal(t, "k3", fourth[0].ToolCallID, "the call asked again has its result")
		require.JSONEq(t, string(books[0].Output), fourth[0].Content)
	})
}

// A run recorded before cut-in-ledger makes the write again, as it did.
func TestConversationInterruptRecordedBeforeTheLedgerWritesAgain(t *testing.T) {
	h := cutInRun(t, writeSpec(chatSpec(config.DoubleTextInterrupt)), rebookReplies(), versionCutInLedger)
	require.Equal(t, []string{"book_flight", "book_flight"}, toolNamesOf(h.toolReqs))
	for _, n := range nodesOfCallsTo(h.trace(), "book_flight") {
		require.Empty(t, n.ReusedFrom)
	}
}

// max_steps counts a turn's steps, not the conversation's: two turns of
// two steps each under a ceiling of two.
func TestConversationTurnsHaveTheirOwnStepCeiling(t *testing.T) {
	spec := chatSpec(config.DoubleTextEnqueue)
	spec.Agent.Policies.MaxSteps = 2
	search := activities.ModelReply{ToolCalls: []activities.ToolCall{call("c1", "search_flights", `{"to":"PAR"}`)}}
	h := newHarness(t, spec, []activities.ModelReply{search, {Content: "UA1 to Paris."}, search, {Content: "UA2 to Rome."}}, okTool)
	var msg updateResult
	h.message(10*time.Minute, "and to Rome?", &msg)
	res, err := h.run(AgentInput{Agent: "travel", Task: "flights to Paris"})
	require.NoError(t, err)
	require.NoError(t, msg.rejected)
	require.JSONEq(t, `"UA2 to Rome."`, string(res.Output))
	require.Equal(t, 4, res.Steps)
}

// A conversation's message is not edited, with the reason; the model
// reads the task once and each message once, never the waits for one.
func TestConversationMessageNodeIsNotEdited(t *testing.T) {
	h := newHarness(t, chatSpec(config.DoubleTextEnqueue), []activities.ModelReply{
		{Content: "Where to?"}, {Content: "Paris it is."},
	}, okTool)
	var msg, edit updateResult
	h.message(10*time.Minute, "Paris", &msg)
	h.edit(20*time.Minute, signals.EditRequest{NodeID: "n4", Output: json.RawMessage(`"Rome"`)}, &edit)
	_, err := h.run(AgentInput{Agent: "travel", Task: "book a trip"})
	require.NoError(t, err)
	require.NoError(t, msg.rejected)
	require.ErrorContains(t, edit.rejected, "n4 is a conversation's message, which cannot be edited yet")
	page, err := h.queryContext()
	require.NoError(t, err)
	require.Equal(t, []string{"book a trip", "Paris"}, userTexts(page.Messages), "the skipped wait at the end is no message")
}

// An agent a conversation is handed to mid-chat is asked the turn's
// message, not the first turn's task, with the handoff context.
func TestConversationHandedOverReadsTheTurnsMessage(t *testing.T) {
	run := &Run{Input: AgentInput{Task: "book a trip"}, Spec: chatSpec(config.DoubleTextEnqueue)}
	run.Nodes = []Node{
		{Node: signals.Node{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted}},
		{Node: signals.Node{ID: "n2", Kind: signals.KindOutput, Status: signals.StatusCompleted}},
		{Node: signals.Node{ID: "n3", Kind: signals.KindTask, Status: signals.StatusCompleted, Args: json.RawMessage(`{"message": "I want a refund", "by": "ana"}`)}},
		{Node: signals.Node{ID: "n4", Kind: signals.KindHandoff, Status: signals.StatusCompleted, Output: json.RawMessage(`{"source_agent": "travel"}`)}},
	}
	run.Turn.Began = "n3"
	msgs := buildConversation(run)
	require.Equal(t, "user", msgs[1].Role)
	require.Equal(t, "I want a refund", msgs[1].Content)
	run.Turn.Began = ""
	require.Equal(t, "book a trip", buildConversation(run)[1].Content, "in the first turn, the task")
}

// Messages still waiting when a conversation is handed to an agent that
// is no conversation join that agent's conversation before its first
// step, never dropped unseen.
func TestMessagesWaitingAtAHandoffJoinTheNextAgentsConversation(t *testing.T) {
	next := waitingChat(t)
	run := next.Continued
	run.Spec, run.Resume = testSpec(), nil // as if handed to an agent that is no conversation
	run.Turn.Waiting, run.Turn.Inbox = "", []signals.MessageRequest{{Text: "and a hotel", Audit: signals.Audit{By: "ana"}}}

	h2 := newHarness(t, testSpec(), []activities.ModelReply{{Content: "Booked, with a hotel."}}, okTool)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.JSONEq(t, `"Booked, with a hotel."`, string(res.Output))
	require.Contains(t, userMessages(h2.requests[0]), "and a hotel")
}
