package testsuite

import (
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// terminal is a command run in a pseudo-terminal, as a person runs it.
type terminal struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  io.ReadWriteCloser
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

func startTerminal(t *testing.T, name string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), name), args...)
	tty, err := pty.Start(cmd)
	require.NoError(t, err)
	term := &terminal{t: t, cmd: cmd, tty: tty, done: make(chan struct{})}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = tty.Close()
	})
	go func() {
		defer close(term.done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			term.mu.Lock()
			term.out.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return term
}

// screen is what the terminal showed so far, lines ended by \n alone.
func (term *terminal) screen() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return strings.ReplaceAll(term.out.String(), "\r\n", "\n")
}

// waitFor waits until the terminal shows want.
func (term *terminal) waitFor(want string) {
	term.t.Helper()
	term.waitUntil(func(screen string) bool { return strings.Contains(screen, want) }, "the terminal shows "+want)
}

// waitUntil waits until the screen is as ok says.
func (term *terminal) waitUntil(ok func(screen string) bool, what string) {
	term.t.Helper()
	for deadline := time.Now().Add(time.Minute); !ok(term.screen()); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			term.t.Fatalf("waited a minute for this: %s; the terminal shows:\n%s", what, term.screen())
		}
	}
}

// waitForPartOf waits until the last agent line shows part of reply, not
// all of it: the reply shows as it is written.
func (term *terminal) waitForPartOf(reply string) {
	term.t.Helper()
	term.waitUntil(func(s string) bool {
		i := strings.LastIndex(s, "agent> ")
		if i < 0 {
			return false
		}
		part := s[i+len("agent> "):]
		return part != "" && len(part) < len(reply) && strings.HasPrefix(reply, part)
	}, "part of the reply shows while the rest is written")
}

// typeLine types a line and Enter.
func (term *terminal) typeLine(s string) {
	_, err := term.tty.Write([]byte(s + "\n"))
	require.NoError(term.t, err)
}

// leave types Ctrl-D on an empty line and waits for the command to end.
func (term *terminal) leave() {
	_, err := term.tty.Write([]byte{4})
	require.NoError(term.t, err)
	select {
	case <-term.done:
	case <-time.After(30 * time.Second):
		term.t.Fatalf("the command did not end after Ctrl-D; it shows:\n%s", term.screen())
	}
	require.NoError(term.t, term.cmd.Wait())
}

const chatConfig = `
model: { base_url: "{{MODEL}}", name: concierge }
tools:
  - { name: book, http: { url: "{{TOOLS}}/book" }, effect: write, approval: always, parameters: { type: object } }
agents:
  - { name: concierge, instructions: Book seats., tools: [book], conversation: { idle_timeout: 1m } }
`

// concierge (a test double) greets slowly, a word at a time; asked for a
// window seat, books 12A, then says so.
func concierge(req openaiRequest) scriptedmodel.Turn {
	last := req.Messages[len(req.Messages)-1]
	switch {
	case len(userMessages(req)) == 1:
		return scriptedmodel.Turn{Content: "Hello! Where would you like to sit on this flight?", ContentPieces: 8, ContentDelay: 400 * time.Millisecond}
	case last.Role == "user":
		return scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"})
	}
	return scriptedmodel.Turn{Content: "Booked 12A for you."}
}

// `unstuck chat` in a terminal: the first message starts the run, the
// reply shows as the model writes it (part of it on the screen before the
// rest is written), the next message books a seat after the user approves
// it inline, Ctrl-D leaves the chat and not the run, and --join shows the
// conversation so far.
func TestChatInATerminal(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		writeJSON(w, 200, map[string]string{"booking": "B-1"})
	})
	s := newBinaryStack(t, strings.ReplaceAll(chatConfig, "{{TOOLS}}", tools.URL), map[string]scriptedmodel.Script{"concierge": concierge})
	id := s.queue // the chat's run is named after its queue

	term := startTerminal(t, "unstuck", "chat", "concierge", "--id", id, "--task-queue", id, "--by", "ana", "--address", serverAddress)
	term.waitFor("Talking to concierge.")
	term.typeLine("hello")
	const greeting = "Hello! Where would you like to sit on this flight?"
	term.waitForPartOf(greeting)
	term.waitFor("agent> " + greeting + "\nyou> ")
	require.Equal(t, 1, strings.Count(term.screen(), greeting), "the reply shows once")

	term.typeLine("a window seat, please")
	term.waitFor(`? book {"seat":"12A"} waits for your approval`)
	require.Empty(t, tools.requests("/book"), "not before the user approves")
	term.typeLine("a")
	term.waitFor(`✓ book {"seat":"12A"}`)
	term.waitFor("agent> Booked 12A for you.\nyou> ")
	require.Len(t, tools.requests("/book"), 1)
	term.leave()
	require.Contains(t, term.screen(), "(left the chat; the run waits for your next message: unstuck chat --join "+id+")")

	again := startTerminal(t, "unstuck", "chat", "--join", id, "--address", serverAddress)
	again.waitFor("ana> hello\nagent> " + greeting) // the first message keeps its author too
	again.waitFor("ana> a window seat, please")
	again.waitFor("agent> Booked 12A for you.\nyou> ")
	again.leave()
}
