package testsuite

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/console"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A run that failed at its start (a typo of the agent's name) is told
// apart from one that is starting by every client: each says so in one
// line, with why, and exits, instead of waiting or saying "starting".
func TestEveryClientSaysARunFailedAtItsStart(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "{{MODEL}}", name: greeter }
agents:
  - { name: concierge, instructions: Help., conversation: { idle_timeout: 1m } }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"greeter": scriptedmodel.Sequence()})
	run := s.start(workflows.AgentInput{Agent: "concierg", Task: "hello"})
	_, err := s.result(run)
	require.ErrorContains(t, err, `unknown agent "concierg"`)

	// Each client gets a bound far above "at once": one that waits
	// without end fails here, naming itself.
	cli := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, filepath.Join(binaries(t), "unstuck"), append(args, "--address", serverAddress)...).CombinedOutput()
		require.NoError(t, ctx.Err(), "unstuck %s waited without end; it printed:\n%s", strings.Join(args, " "), out)
		return string(out), err
	}
	for _, args := range [][]string{
		{"status", run.GetID()},
		{"trace", run.GetID()},
		{"follow", run.GetID()},
		{"say", run.GetID(), "--text", "hello again"},
	} {
		out, err := cli(args...)
		require.Error(t, err, "unstuck %s exits non-zero", args[0])
		require.Contains(t, out, "failed at its start", "unstuck %s", args[0])
		require.Contains(t, out, `unknown agent "concierg"`, "unstuck %s", args[0])
		require.NotContains(t, out, "ask again in a moment", "unstuck %s", args[0])
		t.Logf("unstuck %s: %s", args[0], strings.TrimSpace(out))
	}

	h, err := console.New(serverClient, console.Options{Namespace: "default"})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	page := textOf(fetch(t, srv.URL+"/runs/"+url.PathEscape(run.GetID())))
	require.Contains(t, page, "failed at its start", "the console's run page")
	require.Contains(t, page, `unknown agent "concierg"`, "the console's run page")

	cmd := exec.Command(filepath.Join(binaries(t), "unstuck"), "chat", "concierg", "--task-queue", s.queue, "--address", serverAddress)
	// The terminal stays open, as a person's does: the chat must end
	// itself.
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	t.Cleanup(func() { _ = stdin.Close() })
	go func() { _, _ = stdin.Write([]byte("hello\n")) }()
	done := make(chan struct{})
	var out []byte
	go func() { out, _ = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(45 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("unstuck chat waited without end; it printed:\n%s", out)
	}
	t.Logf("unstuck chat: %s", strings.TrimSpace(string(out)))
	require.Contains(t, string(out), "failed at its start")
	require.Contains(t, string(out), `unknown agent "concierg"`)
}
