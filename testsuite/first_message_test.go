package testsuite

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
)

// firstMessageScripts: the conversation answers what it was last told.
func firstMessageScripts() map[string]scriptedmodel.Script {
	return map[string]scriptedmodel.Script{
		"at-once-chat": func(req openaiRequest) scriptedmodel.Turn {
			return scriptedmodel.Reply("about: " + req.Messages[len(req.Messages)-1].Content)
		},
		"at-once-clerk": scriptedmodel.Sequence(),
	}
}

// `unstuck run --message` starts a conversation and sends its first
// message in one call, Update-With-Start: the run's first workflow task
// takes the message, which waits while the run resolves its agent, and
// the run answers the task, then the message. A message a run refuses is
// said so, with the run left to go on.
func TestRunWithAFirstMessageIsOneCall(t *testing.T) {
	t.Parallel()
	s := newBinaryStack(t, atOnceConfig, firstMessageScripts())
	unstuck := func(args ...string) (string, error) {
		out, err := exec.Command(filepath.Join(binaries(t), "unstuck"), append(args, "--task-queue", s.queue, "--address", serverAddress)...).CombinedOutput()
		return string(out), err
	}
	id := s.queue + "-run"
	out, err := unstuck("run", "--agent", "concierge", "--task", "Ana's stay in Lisbon", "--message", "A hotel near the river?", "--id", id)
	require.NoError(t, err, out)
	require.Contains(t, out, "first message taken by "+id+": 1 waiting to be answered")
	run := s.client.GetWorkflow(t.Context(), id, "")
	require.Eventually(t, func() bool {
		return s.status(run).Phase == signals.PhaseAwaitingUser && len(messagesOf(s.trace(run))) == 2
	}, 30*time.Second, 100*time.Millisecond)
	tr := s.trace(run)
	require.Contains(t, messagesOf(tr)[0], "Ana's stay in Lisbon")
	require.Contains(t, messagesOf(tr)[1], "A hotel near the river?")
	var outputs []string
	for _, n := range nodesOf(tr, signals.KindOutput) {
		outputs = append(outputs, string(n.Output))
	}
	require.Equal(t, []string{`"about: Ana's stay in Lisbon"`, `"about: A hotel near the river?"`}, outputs)

	// One call: the start and the update are in the run's first workflow
	// task, the update accepted before the run did anything else.
	var events []enums.EventType
	it := s.client.GetWorkflowHistory(t.Context(), id, "", false, 0)
	for it.HasNext() && len(events) < 8 {
		e, err := it.Next()
		require.NoError(t, err)
		events = append(events, e.EventType)
	}
	require.Equal(t, enums.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, events[3])
	require.Contains(t, events[4:], enums.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)

	out, err = unstuck("run", "--agent", "concierge", "--task", "again", "--message", "hello?", "--id", id)
	require.Error(t, err)
	require.Contains(t, out, "workflow id "+id+" is already running", "the conflict policy is fail: no run is joined")

	clerk := s.queue + "-clerk"
	out, err = unstuck("run", "--agent", "clerk", "--task", "file form 7", "--message", "hello?", "--id", clerk)
	require.Error(t, err)
	require.Contains(t, out, "run "+clerk+" started, but its first message was not taken: message: agent clerk is not a conversation")

	out, err = unstuck("run", "--agent", "concierg", "--task", "hi", "--message", "hello?", "--id", s.queue+"-typo")
	require.Error(t, err)
	require.Contains(t, out, `the run failed at its start`)
	require.Contains(t, out, `unknown agent "concierg"`)
}

// `unstuck chat --task` starts the run on the task and sends the first
// message typed with it, in one call; the chat shows both answers.
func TestChatWithATaskSendsTheFirstMessageWithTheStart(t *testing.T) {
	t.Parallel()
	s := newBinaryStack(t, atOnceConfig, firstMessageScripts())
	id := s.queue + "-chat"
	term := startTerminal(t, "unstuck", "chat", "concierge", "--task", "Ana's stay in Lisbon", "--id", id, "--task-queue", s.queue, "--by", "ana", "--address", serverAddress)
	term.waitFor("Talking to concierge.")
	term.typeLine("A hotel near the river?")
	term.waitFor("agent> about: A hotel near the river?\nyou> ")
	screen := term.screen()
	require.Contains(t, screen, "ana> Ana's stay in Lisbon")
	require.Contains(t, screen, "agent> about: Ana's stay in Lisbon")
	require.NotContains(t, screen, "ana> A hotel near the river?", "the message typed shows once, as typed")
	term.leave()
}
