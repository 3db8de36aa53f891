package testsuite

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/console"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/internal/testutil"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// streamsConfig: a conversation that answers and waits for the next
// message, so a stream of its events stays open.
const streamsConfig = `
model: { base_url: "{{MODEL}}", name: waiter }
agents:
  - { name: waiter, instructions: Chat., conversation: { idle_timeout: 5m } }
`

// waitingRuns starts n conversations and waits until each waits for its
// next message.
func waitingRuns(t *testing.T, n int) []string {
	t.Helper()
	s := newStack(t, streamsConfig, map[string]scriptedmodel.Script{"waiter": func(openaiRequest) scriptedmodel.Turn {
		return scriptedmodel.Reply("hi")
	}})
	var ids []string
	for range n {
		run := s.start(workflows.AgentInput{Agent: "waiter", Task: "hello"})
		s.awaitPhase(run, signals.PhaseAwaitingUser)
		ids = append(ids, run.GetID())
	}
	return ids
}

// eventStream is an open GET /runs/{id}/events.
type eventStream struct {
	resp   *http.Response
	cancel context.CancelFunc
}

// openStream asks for run id's events on the console at base (with the
// tests' token when token is set) and answers once the answer's header
// came; a refused stream's body is read whole.
func openStream(t *testing.T, base, id string, token bool) *eventStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/runs/"+id+"/events", nil)
	require.NoError(t, err)
	if token {
		req.Header.Set("Authorization", "Bearer "+consoleToken)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	st := &eventStream{resp: resp, cancel: cancel}
	t.Cleanup(st.close)
	return st
}

func (st *eventStream) close() {
	st.cancel()
	_ = st.resp.Body.Close()
}

// requireOpen checks the stream is served: 200, and its first event comes.
func (st *eventStream) requireOpen(t *testing.T) {
	t.Helper()
	if st.resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(st.resp.Body)
		t.Fatalf("the stream was refused: %d %s", st.resp.StatusCode, body)
	}
	line, err := bufio.NewReader(st.resp.Body).ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, "id: ") || strings.HasPrefix(line, "event: "), "%q starts an event", line)
}

// requireRefused checks the stream was refused with status, a
// Retry-After and a reason naming the flag that sets the bound.
func (st *eventStream) requireRefused(t *testing.T, status int, flag string) {
	t.Helper()
	if st.resp.StatusCode == http.StatusOK {
		t.Fatalf("the stream was served (200), want %d: the console serves every stream asked for", status)
	}
	body, _ := io.ReadAll(st.resp.Body)
	require.Equal(t, status, st.resp.StatusCode, "%s", body)
	require.Equal(t, "5", st.resp.Header.Get("Retry-After"))
	require.Contains(t, string(body), flag, "the refusal says which bound")
}

// The console serves at most so many event streams at once, and so many
// of one run: one more is refused (429 for the run's bound, 503 for the
// console's) with a Retry-After and the reason, and a stream that ends
// frees its place. The default bounds hold too.
func TestConsoleBoundsItsEventStreams(t *testing.T) {
	t.Parallel()
	runs := waitingRuns(t, 3)
	a, b, c := runs[0], runs[1], runs[2]

	h, err := console.New(serverClient, console.Options{Namespace: "default", Token: consoleToken, MaxStreams: 3, MaxStreamsPerRun: 2})
	require.NoError(t, err)
	base := serveConsole(t, h)
	a1 := openStream(t, base, a, true)
	a1.requireOpen(t)
	openStream(t, base, a, true).requireOpen(t)
	openStream(t, base, a, true).requireRefused(t, http.StatusTooManyRequests, "--max-streams-per-run")
	openStream(t, base, b, true).requireOpen(t)
	openStream(t, base, c, true).requireRefused(t, http.StatusServiceUnavailable, "--max-streams")
	a1.close()
	require.Eventually(t, func() bool {
		st := openStream(t, base, c, true)
		defer st.close()
		return st.resp.StatusCode == http.StatusOK
	}, 10*time.Second, 50*time.Millisecond, "a stream closed frees its place")

	// The defaults: one run's streams are bounded on a console told nothing.
	base = consoleServer(t)
	for range console.DefaultMaxStreamsPerRun {
		openStream(t, base, c, true).requireOpen(t)
	}
	openStream(t, base, c, true).requireRefused(t, http.StatusTooManyRequests, "--max-streams-per-run")
}

// Ctrl-C on `unstuck console` with a chat page's stream open: the stream
// ends and the console exits 0 at once, well inside the grace period
// requests in flight get, and says nothing of a deadline.
func TestConsoleStopsAtOnceWithAStreamOpen(t *testing.T) {
	t.Parallel()
	id := waitingRuns(t, 1)[0]
	cmd := exec.Command(filepath.Join(binaries(t), "unstuck"), "console", "--listen", "127.0.0.1:0", "--address", serverAddress)
	var out testutil.Buffer // stdout and stderr
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	listening := regexp.MustCompile(`unstuck console: (http://[0-9.:]+)`)
	require.Eventually(t, func() bool { return listening.MatchString(out.String()) }, 30*time.Second, 20*time.Millisecond,
		"the console says where it listens")
	base := listening.FindStringSubmatch(out.String())[1]

	st := openStream(t, base, id, false)
	st.requireOpen(t)
	stopped := time.Now()
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		took := time.Since(stopped)
		t.Logf("exited %s after SIGINT (grace period %s)", took, console.ShutdownGrace)
		require.NoError(t, err, "the console exits 0; it printed:\n%s", out.String())
		require.Less(t, took, console.ShutdownGrace, "it exits before the grace period ends")
	case <-time.After(console.ShutdownGrace + 10*time.Second):
		t.Fatalf("the console did not exit %s after SIGINT; it printed:\n%s", console.ShutdownGrace+10*time.Second, out.String())
	}
	require.NotContains(t, out.String(), "context deadline exceeded")
	_, err := io.Copy(io.Discard, st.resp.Body)
	require.NoError(t, err, "the stream ended cleanly")
}
