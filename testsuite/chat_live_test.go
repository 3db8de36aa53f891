package testsuite

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// A chat in a terminal while a reply is written: what is typed stays on
// the line at the bottom, the reply is written above it, a reply a
// message cut short is marked so, and a message that waits says so.

const hotelsConfig = `
model: { base_url: "{{MODEL}}", name: hotels }
agents:
  - { name: hotels, instructions: Find hotels., conversation: { idle_timeout: 1m }, double_text: {{POLICY}} }
`

const hotelList = "Here are three hotels:\n- Hotel A, near the river\n- Hotel B, in the old town\n- Hotel C, by the sea"

// hotelLister (a test double) answers the first message with hotelList,
// its lines after the first held until listed is closed, and any later
// request with what the user last said.
func hotelLister(listed <-chan struct{}) map[string]scriptedmodel.Script {
	return map[string]scriptedmodel.Script{"hotels": func(req openaiRequest) scriptedmodel.Turn {
		users := userMessages(req)
		if len(users) == 1 {
			return scriptedmodel.Turn{Content: hotelList, ContentHold: listed}
		}
		return scriptedmodel.Turn{Content: "You said: " + users[len(users)-1]}
	}}
}

// startHotelChat starts `unstuck chat hotels` with double_text policy in
// a terminal, says hello, and waits for the first line of the reply,
// the rest held until listed is closed.
func startHotelChat(t *testing.T, policy string, listed <-chan struct{}) *terminal {
	s := newBinaryStack(t, strings.ReplaceAll(hotelsConfig, "{{POLICY}}", policy), hotelLister(listed))
	term := startTerminal(t, "unstuck", "chat", "hotels", "--id", s.queue, "--task-queue", s.queue, "--address", serverAddress)
	term.waitFor("Talking to hotels.")
	term.typeLine("hello")
	term.waitFor("agent> Here are three hotels:\n")
	return term
}

func TestChatKeepsTheLineBeingTypedApartFromTheReply(t *testing.T) {
	t.Parallel()
	listed := make(chan struct{})
	term := startHotelChat(t, "enqueue", listed)
	term.typeText("and a sec")
	term.waitFor("agent> Here are three hotels:\nyou> and a sec")
	close(listed)
	term.waitFor("- Hotel C, by the sea\nyou> and a sec") // written above the line being typed, which stays as typed
	term.typeLine("ond thing")
	term.waitFor("agent> You said: and a second thing\nyou> ")
	require.Contains(t, term.screen(), "agent> "+hotelList+"\nyou> and a second thing\nagent> You said: and a second thing\n")
	for _, line := range strings.Split(term.screen(), "\n") {
		require.False(t, strings.Contains(line, "Hotel") && strings.Contains(line, "sec"), "the reply and the line being typed share a line: %q", line)
	}
	term.leave()
}

func TestChatMarksAReplyAMessageCut(t *testing.T) {
	t.Parallel()
	term := startHotelChat(t, "interrupt", make(chan struct{})) // the rest never comes: the message cuts it short
	term.typeLine("flats, not hotels")
	term.waitFor("agent> ... [cut]\n  (abandoned: the user sent a message (double_text: interrupt))\n")
	term.waitFor("agent> You said: flats, not hotels\nyou> ")
	require.NotContains(t, term.screen(), "Hotel A")
	requireDocShows(t, pageBlock(t, "docs/conversations.md", "agent> ... [cut]"), term.screen())
	term.leave()
}

func TestChatSaysAMessageWaitsForTheReply(t *testing.T) {
	t.Parallel()
	listed := make(chan struct{})
	term := startHotelChat(t, "enqueue", listed)
	term.typeLine("and a second thing")
	term.waitFor("agent> Here are three hotels:\nyou> and a second thing\n  (queued: the agent answers it after the current reply)\nyou> ")
	close(listed)
	term.waitFor("  (queued: the agent answers it after the current reply)\nagent> ...- Hotel A, near the river\n- Hotel B, in the old town\n- Hotel C, by the sea\nagent> You said: and a second thing\nyou> ")
	term.interrupt() // Ctrl-C leaves too
	require.Contains(t, term.screen(), "(left the chat; the run waits for your next message: unstuck chat --join ")
}

// Ctrl-C before the first message leaves: the terminal is raw while the
// chat edits the line, so the chat sends itself the interrupt a terminal
// would, and stops on it.
func TestChatLeavesOnCtrlC(t *testing.T) {
	t.Parallel()
	term := startTerminal(t, "unstuck", "chat", "nobody", "--address", serverAddress)
	term.waitFor("Talking to nobody.")
	term.interrupt()
	require.NotContains(t, term.screen(), "(run ", "no run was started")
}
