package testsuite

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Each double_text policy, in both run shapes, on the worker binary and
// the real server: a message that comes while a conversation's run works
// waits for the step (enqueue), is refused (reject), or cuts the model
// request in flight short (interrupt; rollback also invalidates the
// turn), and a write the model asks for again is not made twice.

// doubleTextConfig is a conversation of both shapes (<shape>-chatter)
// whose double_text is policy; search reads and book writes, on the tool
// server at tools. Its idle_timeout is never reached: each cell reads
// what it needs once the turns it waits for are answered.
func doubleTextConfig(policy, tools string) string {
	return strings.ReplaceAll(`
model: { base_url: "{{MODEL}}", name: chatter }
tools:
  - { name: search, http: { url: "{{TOOLS}}/search" }, parameters: { type: object } }
  - { name: book, http: { url: "{{TOOLS}}/book" }, effect: write, parameters: { type: object } }
agents:
`, "{{TOOLS}}", tools) + twins("chatter", "instructions: Chat., tools: [search, book], conversation: { idle_timeout: 1m }, double_text: "+policy)
}

func TestParityOfDoubleText(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells,
			parityCell{capability: "double_text enqueue", shape: shape, run: func(t *testing.T) { enqueueWhileAsked(t, shape) }},
			parityCell{capability: "double_text reject", shape: shape, run: func(t *testing.T) { rejectWhileAsked(t, shape) }},
		)
		for _, policy := range []string{config.DoubleTextInterrupt, config.DoubleTextRollback} {
			cells = append(cells, parityCell{capability: "double_text " + policy, shape: shape, run: func(t *testing.T) { cutInMakesNoWriteTwice(t, shape, policy) }})
		}
	}
	runParity(t, cells)
}

// searcher (a test double) searches flights at its first request, whose
// answer waits until asked is opened, then answers each request as heard
// does.
func searcher(asked *gate) scriptedmodel.Script {
	return func(req openaiRequest) scriptedmodel.Turn {
		if scriptedmodel.AssistantTurns(req) == 0 {
			asked.wait()
			return scriptedmodel.CallTurn("search", map[string]any{"to": "PAR"})
		}
		return heard(req)
	}
}

// searchStack is a conversation of double_text policy, with searcher as
// its model (held at its first request by the gate it answers) and a
// search that finds UA1.
func searchStack(t *testing.T, policy string) (*stack, *toolServer, *gate) {
	asked := newGate(t)
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		writeJSON(w, 200, map[string]string{"flight": "UA1"})
	})
	s := newBinaryStack(t, doubleTextConfig(policy, tools.URL), map[string]scriptedmodel.Script{"chatter": searcher(asked)})
	return s, tools, asked
}

// enqueue: a message while the model is asked waits (queued), and the
// request is not cut short: its reply's search runs, the message joins
// after the step (its task node after the search's), and the next request
// reads the search's result, then the message, and answers it.
func enqueueWhileAsked(t *testing.T, shape string) {
	s, tools, asked := searchStack(t, config.DoubleTextEnqueue)
	run := latestRun{s.start(workflows.AgentInput{Agent: shape + "-chatter", Task: "find a flight"})}
	require.Eventually(t, func() bool { return s.model.RequestCount() >= 1 }, time.Minute, 20*time.Millisecond, "the model is asked")
	res := sendMessage(t, s, run, "a window seat, please")
	require.Equal(t, 1, res.Queued, "the message waits for the step")
	asked.open()
	awaitOutputs(t, s, run, 1)

	tr := s.trace(run)
	require.JSONEq(t, `{"heard": "a window seat, please", "turns": 2}`, string(nodesOf(tr, signals.KindOutput)[0].Output), "the turn answers the message")
	require.Len(t, tools.requests("/search"), 1, "the reply of the request the message came during was taken")
	for _, n := range nodesOf(tr, signals.KindRequest) {
		require.Equal(t, signals.StatusCompleted, n.Status, "no request is cut short: %s", n.Error)
	}
	search := callsOf(tr, "search")[0]
	message := messageNode(t, tr, "a window seat, please")
	require.Greater(t, indexOf(tr, message.ID), indexOf(tr, search.ID), "the message joins after the step")
	require.Contains(t, message.Parents, search.ID)
	sent := lastRequest(s).Messages
	n := len(sent)
	require.Equal(t, "tool", sent[n-2].Role, "the step's result first")
	require.Equal(t, "user", sent[n-1].Role)
	require.Equal(t, "a window seat, please", sent[n-1].Content)
	requireEveryCallAnswered(t, s.model.Requests())
}

// reject: a message while the run works is refused, naming why, and is
// never seen; the run goes on and answers its task, and a message while
// it waits for the next is taken and answered.
func rejectWhileAsked(t *testing.T, shape string) {
	s, _, asked := searchStack(t, config.DoubleTextReject)
	run := latestRun{s.start(workflows.AgentInput{Agent: shape + "-chatter", Task: "find a flight"})}
	require.Eventually(t, func() bool { return s.model.RequestCount() >= 1 }, time.Minute, 20*time.Millisecond, "the model is asked")
	err := s.update(run, signals.Message, signals.MessageRequest{Text: "Paris"})
	require.ErrorContains(t, err, "double_text is reject")
	asked.open()
	awaitOutputs(t, s, run, 1)
	awaitPhase(t, s, run, signals.PhaseAwaitingUser)
	res := sendMessage(t, s, run, "Rome")
	require.Equal(t, 1, res.Queued)
	awaitOutputs(t, s, run, 2)

	tr := s.trace(run)
	outs := nodesOf(tr, signals.KindOutput)
	require.JSONEq(t, `{"heard": "find a flight", "turns": 1}`, string(outs[0].Output), "the run went on with its task")
	require.JSONEq(t, `{"heard": "Rome", "turns": 2}`, string(outs[1].Output))
	messageNode(t, tr, "Rome")
	for _, n := range nodesOf(tr, signals.KindTask) {
		require.NotContains(t, string(n.Args), "Paris", "the refused message is not in the trace")
	}
	for _, req := range s.model.Requests() {
		for _, m := range req.Messages {
			require.NotEqual(t, "Paris", m.Content, "the model never reads the refused message")
		}
	}
}

// rebooker (a test double) books seat 12A for each user message it has
// not booked for yet; after its first booking it takes a minute over its
// reply (the request a message cuts short), and it answers with what it
// heard once it has booked for it.
func rebooker(req openaiRequest) scriptedmodel.Turn {
	users, last, booked := 0, "", false
	for _, m := range req.Messages {
		switch {
		case m.Role == "user":
			users, last, booked = users+1, m.Content, false
		case m.Role == "assistant" && len(m.ToolCalls) > 0:
			booked = true
		}
	}
	switch {
	case !booked:
		return scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"})
	case users == 1:
		turn := scriptedmodel.Reply("still thinking")
		turn.Delay = time.Minute
		return turn
	}
	return finalOutput(map[string]any{"seat": "12A", "heard": last})
}

// interrupt and rollback: the model books a seat, and a message comes
// while the model is asked after it. The request is abandoned and the
// message joins at once; the model books the same seat again, and the
// effect ledger answers it: the tool saw the write once. Every call the
// model made has its result in the conversation. With interrupt the first
// booking stays; with rollback the turn's nodes are invalidated.
//
// The message comes during the request after the write, not during the
// write: a call is never cut (the message would wait for it, as with
// enqueue), so that request is where interrupt acts, and where the model
// asks again for what it already did.
func cutInMakesNoWriteTwice(t *testing.T, shape, policy string) {
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		writeJSON(w, 200, map[string]any{"booking": n})
	})
	s := newBinaryStack(t, doubleTextConfig(policy, tools.URL), map[string]scriptedmodel.Script{"chatter": rebooker})
	run := latestRun{s.start(workflows.AgentInput{Agent: shape + "-chatter", Task: "book me a seat"})}
	require.Eventually(t, func() bool { return len(tools.requests("/book")) == 1 }, time.Minute, 20*time.Millisecond)
	require.Eventually(t, func() bool { return s.model.RequestCount() >= 2 }, time.Minute, 20*time.Millisecond, "the slow reply is asked")
	sendMessage(t, s, run, "window seat, please")
	awaitOutputs(t, s, run, 1)

	tr := s.trace(run)
	require.JSONEq(t, `{"seat": "12A", "heard": "window seat, please"}`, string(nodesOf(tr, signals.KindOutput)[0].Output))
	require.Len(t, tools.requests("/book"), 1, "the write happened once")
	books := callsOf(tr, "book")
	require.Len(t, books, 2, "the model booked again")
	require.Equal(t, signals.StatusCompleted, books[1].Status)
	require.Equal(t, books[0].ID, books[1].ReusedFrom, "the ledger answered the same write again")
	require.JSONEq(t, `{"booking": 1}`, string(books[1].Output), "with what the write answered")
	reqs := nodesOf(tr, signals.KindRequest)
	require.Contains(t, reqs[1].Error, "abandoned: the user sent a message (double_text: "+policy+")")
	message := messageNode(t, tr, "window seat, please")
	require.Equal(t, []string{message.ID}, reqs[2].Parents, "the message joins at once: the next request follows it")
	requireEveryCallAnswered(t, s.model.Requests())
	if policy == config.DoubleTextInterrupt {
		// The ledger answering a write the cut turn made (gate
		// cut-in-ledger), kept so later releases replay it.
		recordAndReplay(t, run, historyName("double_text_interrupt", shape))
	}
	if policy == config.DoubleTextRollback {
		require.Equal(t, signals.StatusInvalidated, books[0].Status, "rolled back")
		require.Equal(t, signals.StatusInvalidated, reqs[1].Status)
		return
	}
	require.Equal(t, signals.StatusCompleted, books[0].Status, "interrupt keeps what the turn did")
	require.Equal(t, signals.StatusFailed, reqs[1].Status)
}

// messageNode is the task node of the conversation's message text.
func messageNode(t *testing.T, tr signals.Trace, text string) signals.Node {
	t.Helper()
	for _, n := range nodesOf(tr, signals.KindTask) {
		var m struct{ Message string }
		if json.Unmarshal(n.Args, &m) == nil && m.Message == text {
			return n
		}
	}
	t.Fatalf("no task node holds the message %q", text)
	return signals.Node{}
}

// lastRequest is the last request the scripted model was sent.
func lastRequest(s *stack) openaiRequest {
	reqs := s.model.Requests()
	return reqs[len(reqs)-1]
}

// requireEveryCallAnswered checks that in each request the model was
// sent, each call an assistant message made has its tool message.
func requireEveryCallAnswered(t *testing.T, reqs []openaiRequest) {
	t.Helper()
	for i, req := range reqs {
		answered := map[string]bool{}
		for _, m := range req.Messages {
			if m.Role == "tool" {
				answered[m.ToolCallID] = true
			}
		}
		for _, m := range req.Messages {
			for _, c := range m.ToolCalls {
				require.True(t, answered[c.ID], "request %d: call %s (%s) has no result message", i+1, c.ID, c.Function.Name)
			}
		}
	}
}
