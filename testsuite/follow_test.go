package testsuite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/signals"
)

// follower is an `unstuck follow --json` process following a run.
type follower struct {
	cmd *exec.Cmd
	out *bytes.Buffer
}

// startFollow starts `unstuck follow --json` on workflow id, with args.
func startFollow(t *testing.T, id string, args ...string) *follower {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "unstuck"), append([]string{"follow", id, "--json", "--address", serverAddress}, args...)...)
	f := &follower{cmd: cmd, out: &bytes.Buffer{}}
	cmd.Stdout, cmd.Stderr = f.out, f.out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return f
}

// events waits for the follower to end (with the run) and reads its events.
func (f *follower) events(t *testing.T) []feed.Event {
	t.Helper()
	require.NoError(t, f.cmd.Wait(), f.out.String())
	var events []feed.Event
	sc := bufio.NewScanner(f.out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e feed.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), sc.Text())
		events = append(events, e)
	}
	return events
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
