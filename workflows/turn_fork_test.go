package workflows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A fork of a conversation (unstuck fork) is a conversation too: it
// answers the turn of its node again, from the node, and waits for its
// own next message.

// waitingSource is a two-turn conversation as the fork reads it (the run
// query) while it waits for its third message, with a message it had
// accepted and not yet taken.
func waitingSource(t *testing.T, spec *config.Resolved) []byte {
	var packed []byte
	twoTurns(t, spec, func(h *harness) {
		h.env.RegisterDelayedCallback(func() {
			v, err := h.env.QueryWorkflow(signals.QueryRun)
			require.NoError(t, err)
			require.NoError(t, v.Get(&packed))
		}, 20*time.Minute)
	})
	run, err := uncarryRun(packed)
	require.NoError(t, err)
	require.Equal(t, "n12", run.Turn.Waiting, "the source waits for its third message")
	run.Turn.Inbox = []signals.MessageRequest{{Text: "the source's own message", Audit: signals.Audit{By: "ana"}}}
	packed, err = packRun(run)
	require.NoError(t, err)
	return packed
}

// forkChat forks the waiting source from its first turn's search, edited,
// and sends the fork a message at 10 minutes; early is the fork at 5.
func forkChat(t *testing.T, spec *config.Resolved, before ...string) (*harness, *glance) {
	packed := waitingSource(t, spec)
	h := newHarness(t, writeSpec(spec), []activities.ModelReply{finalAnswer("f3", "Booked AF9."), finalAnswer("f4", "You're welcome.")}, okTool)
	if len(before) > 0 {
		h.before(before...)
	}
	h.env.OnActivity(acts.ReadRun, mock.Anything, "chat-1").Return(packed, nil)
	early, msg := h.thankLater()
	_, err := h.run(AgentInput{From: &ForkFrom{WorkflowID: "chat-1", NodeID: "n3", Edit: json.RawMessage(`{"output": {"flights":[{"id":"AF9"}]}}`)}})
	require.NoError(t, err)
	require.NoError(t, msg.rejected)
	return h, early
}

// A fork from the first turn of a conversation that waits for its next
// message answers that turn from the edited node (the booking kept, not
// made again), then waits, as a conversation, for its own next message:
// its source's later turns, its wait and the message it had not taken
// are not the fork's.
func TestAForkOfAConversationAnswersItsTurnAndWaits(t *testing.T) {
	eachShape(t, config.DoubleTextEnqueue, func(t *testing.T, spec *config.Resolved) {
		h, early := forkChat(t, spec)
		require.Equal(t, 1, early.asked, "the edited turn was answered before any message")
		require.Equal(t, signals.PhaseAwaitingUser, early.status.Phase, "then the fork waits for its next message")
		require.True(t, early.status.Conversation)
		require.Empty(t, h.toolReqs)
		require.Len(t, h.requests, 2)
		require.Equal(t, []string{"book a trip"}, userMessages(h.requests[0]), "the source's later messages are not the fork's")
		require.Equal(t, []string{"thanks"}, userMessages(h.requests[1]))
		tr := h.trace()
		outputs := validOutputs(tr)
		require.Len(t, outputs, 2)
		require.JSONEq(t, `{"answer": "Booked AF9."}`, outputs[0])
		for _, n := range tr.Nodes {
			require.NotContains(t, []string{"n8", "n12"}, n.ID, "the source's later nodes are dropped")
		}
	})
}

// A fork started before turn-edit took over its source's wait and the
// message it had not taken, as it did: it answered that message, never
// the edited turn.
func TestAForkRecordedBeforeTurnEditTakesItsSourcesMessage(t *testing.T) {
	h, _ := forkChat(t, chatSpec(config.DoubleTextEnqueue), versionTurnEdit)
	require.Contains(t, userMessages(h.requests[0]), "the source's own message")
}
