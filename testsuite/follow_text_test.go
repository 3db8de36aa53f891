package testsuite

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// replyText rebuilds a node's reply from its text events, as a client
// does: offset 0 starts again, any other offset continues what it has.
func replyText(t *testing.T, events []feed.Event, node string) string {
	t.Helper()
	text := ""
	for _, e := range events {
		if e.Type != feed.TypeText || e.Text.Node != node {
			continue
		}
		if e.Text.Offset == 0 {
			text = ""
		}
		require.Equal(t, len(text), e.Text.Offset, "a text event continues what the client has")
		text += e.Text.Delta
	}
	return text
}

func textEvents(events []feed.Event) []feed.Text {
	var out []feed.Text
	for _, e := range events {
		if e.Type == feed.TypeText {
			out = append(out, *e.Text)
		}
	}
	return out
}

// A follower reads a conversation's reply as the model writes it, before
// its node settles. The worker is SIGKILLed mid-reply and the follower
// leaves; a new worker retries the request, and a follower that comes back
// with the last id it had misses no durable event and is told none twice;
// the settled request carries the whole reply.
func TestFollowerReadsTheReplyAsWrittenAndResumesAcrossAWorkerKill(t *testing.T) {
	t.Parallel()
	const reply = "The quick brown fox jumps over the lazy dog, twice over, and then once more for luck."
	var firsts atomic.Int32
	model := startModel(t, map[string]scriptedmodel.Script{"writer": func(req openaiRequest) scriptedmodel.Turn {
		turn := scriptedmodel.Turn{Content: reply, ContentPieces: 12, ContentDelay: 100 * time.Millisecond}
		if firsts.Add(1) == 1 {
			turn.ContentDelay = 2 * time.Second // the worker dies in here
		}
		return turn
	}}, "")
	workers := newWorkerProcesses(t, `
model: { base_url: "`+model.URL()+`", name: writer }
agents:
  - { name: writer, instructions: Write., tools: [], conversation: { idle_timeout: 2s } }
`, "follow-text")
	worker := workers.start()
	run := workers.run(workflows.AgentInput{Agent: "writer", Task: "write me a line"})

	first := startFollow(t, run.GetID())
	require.Eventually(t, func() bool { return len(textEvents(first.seen(t))) >= 2 }, time.Minute, 50*time.Millisecond,
		"the follower reads the reply while it is written")
	require.NoError(t, worker.Process.Kill()) // SIGKILL, mid-reply
	_ = worker.Wait()
	before := first.stop(t)
	workers.start()

	node := textEvents(before)[0].Node
	partial := replyText(t, before, node)
	require.NotEmpty(t, partial)
	require.True(t, strings.HasPrefix(reply, partial), "%q is the reply so far", partial)
	require.Less(t, len(partial), len(reply), "read before the reply was whole")
	for _, e := range before {
		if e.Type == feed.TypeNode && e.Node.ID == node {
			require.False(t, e.Node.Status.Settled(), "the text came before its node settled")
		}
	}

	var last string
	for _, e := range before {
		if e.ID != "" {
			last = e.ID
		}
	}
	require.NotEmpty(t, last)
	resumed := startFollow(t, run.GetID(), "--after", last).events(t)
	res := awaitResult(t, run, 2*time.Minute)
	require.Equal(t, "completed", res.Status)
	require.Equal(t, 2, int(firsts.Load()), "the request was asked again of the model by the new worker")

	tr := traceOf(t, run)
	req := nodeOf(t, tr, node)
	require.Equal(t, signals.KindRequest, req.Kind)
	require.Equal(t, signals.StatusCompleted, req.Status)
	require.Contains(t, string(req.Output), reply, "the settled node carries the whole reply")
	if texts := textEvents(resumed); len(texts) > 0 {
		require.Zero(t, texts[0].Offset, "a follower that comes back is told the text so far from the start")
		require.True(t, strings.HasPrefix(reply, replyText(t, resumed, node)))
	}

	// Every durable event once across both followers, and every node in
	// its last status.
	seen := map[string]bool{}
	lastStatus := map[string]signals.NodeStatus{}
	for _, e := range append(before, resumed...) {
		if e.ID == "" || e.Type == feed.TypePhase {
			continue
		}
		require.False(t, seen[e.ID], "event %s told twice", e.ID)
		seen[e.ID] = true
		if e.Type == feed.TypeNode {
			lastStatus[e.Node.ID] = e.Node.Status
		}
	}
	for _, n := range tr.Nodes {
		require.Equal(t, n.Status, lastStatus[n.ID], "node %s in its last status", n.ID)
	}
}
