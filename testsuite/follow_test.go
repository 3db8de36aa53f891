package testsuite

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// follower is an `unstuck follow --json` process following a run, its
// events read as they come, so a test can act on one mid-run.
type follower struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	read   chan struct{} // closed when its output ended
	mu     sync.Mutex
	lines  []string // of its output, each an event
}

// startFollow starts `unstuck follow --json` on workflow id, with args.
func startFollow(t *testing.T, id string, args ...string) *follower {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "unstuck"), append([]string{"follow", id, "--json", "--address", serverAddress}, args...)...)
	f := &follower{cmd: cmd, stderr: &bytes.Buffer{}, read: make(chan struct{})}
	cmd.Stderr = f.stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	go func() {
		defer close(f.read)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			f.mu.Lock()
			f.lines = append(f.lines, sc.Text())
			f.mu.Unlock()
		}
	}()
	return f
}

// seen are the events the follower printed so far.
func (f *follower) seen(t *testing.T) []feed.Event {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	events := make([]feed.Event, len(f.lines))
	for i, line := range f.lines {
		require.NoError(t, json.Unmarshal([]byte(line), &events[i]), line)
	}
	return events
}

// events waits for the follower to end (with the run) and reads its events.
func (f *follower) events(t *testing.T) []feed.Event {
	t.Helper()
	<-f.read
	require.NoError(t, f.cmd.Wait(), f.stderr.String())
	return f.seen(t)
}

// stop kills the follower (a client gone mid-run) and gives what it saw.
func (f *follower) stop(t *testing.T) []feed.Event {
	t.Helper()
	_ = f.cmd.Process.Kill()
	<-f.read
	_ = f.cmd.Wait()
	return f.seen(t)
}

// requireFollowed checks a follower's events against the run's trace:
// every event once, each node in its last status, the end last; and a
// follower resuming after any of the events but the last is given exactly
// the events after it (the phase it resumes in aside, told again).
func requireFollowed(t *testing.T, id string, tr signals.Trace, events []feed.Event) {
	t.Helper()
	require.NotEmpty(t, events)
	require.Equal(t, feed.TypeEnd, events[len(events)-1].Type, "the end comes last")
	seen := map[string]bool{}
	last := map[string]signals.NodeStatus{}
	for _, e := range events {
		require.False(t, seen[e.ID], "event %s twice", e.ID)
		seen[e.ID] = true
		if e.Type == feed.TypeNode {
			last[e.Node.ID] = e.Node.Status
		}
	}
	for _, n := range tr.Nodes {
		require.Equal(t, n.Status, last[n.ID], "node %s in its last status", n.ID)
	}
	i := len(events) / 2
	again := startFollow(t, id, "--after", events[i].ID).events(t)
	require.Equal(t, lastStates(events[i+1:]), lastStates(again), "resumed after %s", events[i].ID)
}

// lastStates are the ids of the events that still say a node's state: a
// node's last node event among them (a node that changed again meanwhile
// is given to a resuming follower in its last state only), the approval
// event of a node whose last state is awaiting approval, and the end;
// phase events aside.
func lastStates(events []feed.Event) []string {
	last := map[string]int{} // node id: index of its last node event
	for i, e := range events {
		if e.Type == feed.TypeNode {
			last[e.Node.ID] = i
		}
	}
	var ids []string
	for i, e := range events {
		switch e.Type {
		case feed.TypeNode:
			if last[e.Node.ID] == i {
				ids = append(ids, e.ID)
			}
		case feed.TypeApproval:
			if events[last[e.Node.ID]].Node.Status == signals.StatusAwaitingApproval {
				ids = append(ids, e.ID)
			}
		case feed.TypeEnd:
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// The console serves a run's events as Server-Sent Events: the same
// events `unstuck follow` prints, resumed after a Last-Event-ID (on
// another console too); a malformed id, or one naming no node of the
// run, is a 400, and an unknown run a 404.
func TestConsoleServesARunsEventsAndResumes(t *testing.T) {
	t.Parallel()
	s := newStack(t, travelConfig, scriptedmodel.Scenarios())
	run := s.start(workflows.AgentInput{Agent: "travel", Task: "Book NYC to LAX on 2024-01-15"})
	_, err := s.result(run)
	require.NoError(t, err)
	base := consoleServer(t)

	all := sseEvents(t, base, run.GetID(), "", http.StatusOK)
	require.Equal(t, feed.TypeEnd, all[len(all)-1].Type)
	cli := startFollow(t, run.GetID()).events(t)
	require.Equal(t, lastStates(cli), lastStates(all), "the stream says what unstuck follow does")

	// The console keeps nothing of a stream: a client that reconnects to
	// another console (one restarted, or behind a load balancer) resumes
	// there.
	i := len(all) / 2
	again := sseEvents(t, consoleServer(t), run.GetID(), all[i].ID, http.StatusOK)
	require.Equal(t, lastStates(all[i+1:]), lastStates(again), "resumed after %s, on another console", all[i].ID)

	sseEvents(t, base, run.GetID(), "yesterday", http.StatusBadRequest)
	sseEvents(t, base, run.GetID(), feed.ID(time.Now(), "n999999", "completed"), http.StatusBadRequest)
	sseEvents(t, base, "no-such-run-"+run.GetID(), "", http.StatusNotFound)
}

// sseEvents reads GET /runs/{id}/events to its end (the run's end event),
// sending lastID as Last-Event-ID, and checks the status.
func sseEvents(t *testing.T, base, id, lastID string, status int) []feed.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/runs/"+id+"/events", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+consoleToken)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != status {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s events (Last-Event-ID %q): %d %s, want %d", id, lastID, resp.StatusCode, body, status)
	}
	if status != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		require.NotEmpty(t, strings.TrimSpace(string(body)), "a refusal says why")
		return nil
	}
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var events []feed.Event
	var sseID string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			sseID = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: error"):
			t.Fatalf("the stream failed: %s", line)
		case strings.HasPrefix(line, "data: "):
			var e feed.Event
			require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &e))
			require.Equal(t, sseID, e.ID, "the SSE id is the event's")
			events = append(events, e)
			if e.Type == feed.TypeEnd {
				return events
			}
		}
	}
	t.Fatalf("the stream ended without the run's end: %v", sc.Err())
	return nil
}
