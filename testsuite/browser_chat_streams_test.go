package testsuite

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/console"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A chat page whose stream the console refuses (the run has as many
// streams as the console serves one) says so, and once a place is free
// opens its stream again by itself: the next answer appears without a
// reload.
func TestBrowserConsoleChatWaitsOutARefusedStream(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	h, err := console.New(serverClient, console.Options{Namespace: "default", Token: consoleToken, MaxStreamsPerRun: 1})
	require.NoError(t, err)
	base := serveConsole(t, h)
	s := newStack(t, consoleChatConfig, map[string]scriptedmodel.Script{"console-chat": chatter})
	run := s.start(workflows.AgentInput{Agent: "console-chatter", Task: "hello"})
	awaitPhase(t, s, latestRun{run}, signals.PhaseAwaitingUser)

	other := openStream(t, base, run.GetID(), true) // another page's
	other.requireOpen(t)
	b.signIn(base)
	b.do("open the conversation's run page",
		chromedp.Navigate(base+"/runs/"+run.GetID()),
		chromedp.WaitVisible(chromedp.CSS(chatMessages+`.agent`)))
	require.Equal(t, 42, get(b, "mark the page", chromedp.Evaluate[int]("window.chatMarker = 42")))
	b.waitText(`#chat-events-error`, "the console refused the live stream")

	other.close()
	b.waitJS("the page to open its stream again", `!document.getElementById("chat-events-error")`)
	b.do("send a message with Enter", chromedp.SendKeys(chromedp.CSS(`#chat-form textarea[name="text"]`), "Rome"+kb.Enter))
	b.waitText(chatMessages+`.agent[data-node-id]:last-child`, "You said: Rome")
	notReloaded(t, b)
}
