package workflows

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/chat"
)

// A conversation's carried state stays bounded however many turns it
// has: the messages of turns that have ended are archived with the rest
// of their turn (archive.go), and read back through the generation that
// holds them, as archived steps are.

// chatMessageBytes is what each message of the long conversation weighs:
// thirty-two of them are over archiveAbove.
const chatMessageBytes = 16 << 10

// bulky is message i of the long conversation: text that differs for
// each i and that gzip does not shrink much (hex), so the carried state's
// size shows what it holds.
func bulky(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "message %d: ", i)
	sum := sha256.Sum256([]byte(fmt.Sprint(i)))
	for b.Len() < chatMessageBytes {
		b.WriteString(hex.EncodeToString(sum[:]))
		sum = sha256.Sum256(sum[:])
	}
	return b.String()
}

// longConversation runs one generation of a conversation of turns turns
// (the task, then a message every 10 minutes, each answered), and has
// Temporal suggest continue-as-new once the last is answered. It answers
// the harness and the workflow's error (a continue-as-new, or why not).
func longConversation(t *testing.T, spec *config.Resolved, turns int, before ...string) *harness {
	t.Helper()
	var replies []activities.ModelReply
	for i := range turns {
		replies = append(replies, finalAnswer(fmt.Sprintf("f%d", i), fmt.Sprintf("answer %d", i)))
	}
	spec.Agent.Policies.MaxSteps = 2 * turns
	h := newHarness(t, spec, replies, okTool)
	// The test holds every turn in one generation, which a real server
	// never lets grow so far (it suggests continue-as-new much earlier:
	// testsuite/conversation_archive_test.go carries at most 22 messages
	// a generation), so the last steps' work over 200 bulky messages may
	// pass the SDK's 1 s deadlock detector on a loaded machine.
	h.env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: 30 * time.Second})
	h.before(before...)
	got := make([]updateResult, turns-1)
	for i := 1; i < turns; i++ {
		h.message(time.Duration(i)*10*time.Minute, bulky(i), &got[i-1])
	}
	h.env.RegisterDelayedCallback(func() {
		h.env.SetContinueAsNewSuggested(true)
		h.env.SignalWorkflow(signals.Reply, map[string]any{"text": "wake up", "by": "someone"})
	}, time.Duration(turns)*10*time.Minute)
	_, _ = h.run(AgentInput{Agent: "travel", Task: bulky(0)})
	for i, m := range got {
		require.NoError(t, m.rejected, "message %d", i+1)
	}
	return h
}

// carriedSize is what continue-as-new carries of the run: its JSON and
// its gzip, in bytes, and the conversation's message nodes it holds.
func carriedSize(run *Run) (jsonBytes, gzipBytes, messages int) {
	data := mustJSON(run)
	for i := range run.Nodes {
		if _, ok := messageOf(&run.Nodes[i]); ok {
			messages++
		}
	}
	return len(data), len(gzipped(data)), messages
}

func TestALongConversationCarriesABoundedState(t *testing.T) {
	eachShape(t, config.DoubleTextEnqueue, func(t *testing.T, spec *config.Resolved) {
		const turns = 50
		h := longConversation(t, spec, turns)
		next := continuedInput(t, h)
		run := next.Continued
		// Each later generation below starts from its own copy.
		carried := mustJSON(run)
		fresh := func() AgentInput {
			var c Run
			require.NoError(t, json.Unmarshal(carried, &c))
			return AgentInput{Continued: &c}
		}
		j50, gz50, msgs50 := carriedSize(run)
		t.Logf("%d turns: carried %d KiB as JSON, %d KiB compressed, %d message nodes of %d", turns, j50>>10, gz50>>10, msgs50, turns-1)
		a := run.Archived
		require.NotNil(t, a, "the trace is over %d KiB: its oldest part is archived", archiveAbove>>10)
		require.Less(t, msgs50, turns/2, "the messages of turns that ended are archived with their turns")
		require.Less(t, j50, archiveAbove, "the carried trace is bounded")

		// The messages the run carries are those of its newest turns; the
		// turn under way (the wait for the next message) stays.
		last := run.node(run.Turn.Waiting)
		require.NotNil(t, last, "the wait for the next message is carried")
		conv := buildConversation(run)
		said := userTexts(conv)
		require.Equal(t, bulky(0), said[0], "the model reads the run's task")
		require.Contains(t, said[1], "are archived", "then a note where the archived turns were")
		require.Equal(t, bulky(turns-1), said[len(said)-1], "and the newest turns, up to the last message")
		require.NotContains(t, said, bulky(1), "an old turn's message is no longer sent")
		requireAskedFirst(t, conv)
		// A kept turn's nodes find the message that began it.
		for i := range run.Nodes {
			if n := &run.Nodes[i]; n.Kind == signals.KindOutput && nodeNumber(n.ID) > nodeNumber(a.Through)+4 {
				began, _, known := chat.TurnOf(chatTrace{run}, i)
				require.True(t, known, "the turn of %s is known", n.ID)
				text, _ := messageOf(run.node(began))
				require.Contains(t, text, "message ", "%s answers a message", n.ID)
				break
			}
		}

		// Every message is read back through the generation that holds it.
		old := 0
		for _, n := range h.trace().Nodes {
			if text, ok := messageOf(&Node{Node: n}); ok && n.Kind == signals.KindTask {
				require.Equal(t, bulky(old+1), text)
				if old == 0 {
					require.True(t, run.isArchived(n.ID), "the first message (%s) is archived", n.ID)
					require.Nil(t, run.node(n.ID), "and not carried")
				}
				old++
			}
		}
		require.Equal(t, turns-1, old, "the generation that archived answers every message")

		// The next generation goes on with the conversation: the model is
		// sent the kept turns whole, then the next message.
		h2 := newHarness(t, spec, []activities.ModelReply{finalAnswer("g", "answer next")}, okTool)
		var msg updateResult
		h2.message(10*time.Minute, bulky(turns), &msg)
		res, err := h2.run(fresh())
		require.NoError(t, err)
		require.NoError(t, msg.rejected)
		require.JSONEq(t, `{"answer": "answer next"}`, string(res.Output))
		require.Len(t, h2.requests, 1)
		sent := userTexts(h2.requests[0].Delta)
		require.Equal(t, said, sent[:len(sent)-1], "the kept conversation, whole")
		require.Equal(t, bulky(turns), sent[len(sent)-1])
		require.Equal(t, a.RunID, h2.trace().Archived.RunID, "its trace names the generation that holds the archived turns")

		// An edit of a kept turn's answer makes that turn the one under
		// way again: its message is carried, and found.
		var request, message string
		for i := len(run.Nodes) - 1; i >= 0 && message == ""; i-- {
			n := &run.Nodes[i]
			switch {
			case n.Kind == signals.KindRequest && n.Status == signals.StatusCompleted:
				request = n.ID
			case n.Kind == signals.KindTask && request != "" && n.Status == signals.StatusCompleted:
				if _, ok := messageOf(n); ok && nodeNumber(n.ID) < nodeNumber(run.Turn.Began) {
					message = n.ID
				}
			}
		}
		h3 := newHarness(t, spec, nil, okTool)
		var edit updateResult
		h3.edit(5*time.Minute, signals.EditRequest{NodeID: request, Output: json.RawMessage(`{"tool_calls": [{"id": "f1", "name": "final_output", "args": {"answer": "edited"}}]}`)}, &edit)
		_, _ = h3.run(fresh())
		require.NoError(t, edit.rejected)
		require.NoError(t, edit.err)
		edited := continuedInput(t, h3).Continued
		require.Equal(t, message, edited.Turn.Began, "the edited answer's turn is the one under way")
		h4 := newHarness(t, spec, nil, okTool)
		res, err = h4.run(AgentInput{Continued: edited})
		require.NoError(t, err)
		require.JSONEq(t, `{"answer": "edited"}`, string(res.Output), "the turn answered again, then idle")

		// Four times the turns carry about as much.
		h = longConversation(t, spec, 4*turns)
		j200, gz200, msgs200 := carriedSize(continuedInput(t, h).Continued)
		t.Logf("%d turns: carried %d KiB as JSON, %d KiB compressed, %d message nodes of %d", 4*turns, j200>>10, gz200>>10, msgs200, 4*turns-1)
		require.Less(t, j200, j50+j50/4, "the carried state does not grow with the turns")
		require.Less(t, msgs200, msgs50+msgs50/4)
	})
}

// A run recorded before old turns were archived carries every message
// (version turn-archive).
func TestALongConversationOfAnEarlierVersionCarriesEveryMessage(t *testing.T) {
	const turns = 50
	h := longConversation(t, chatSpec(config.DoubleTextEnqueue), turns, versionTurnArchive)
	j, gz, msgs := carriedSize(continuedInput(t, h).Continued)
	t.Logf("%d turns, earlier version: carried %d KiB as JSON, %d KiB compressed, %d message nodes", turns, j>>10, gz>>10, msgs)
	require.Equal(t, turns-1, msgs)
}
