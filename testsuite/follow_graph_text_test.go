package testsuite

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A graph run's llm node streams its reply to a follower as a free-form
// request does: `unstuck follow` prints the node's text as the model
// writes it, before the request settles, and the settled node (of graph
// node D) carries the whole reply.
func TestFollowerReadsAGraphLLMNodesReplyAsWritten(t *testing.T) {
	t.Parallel()
	const reply = "Dear Ana, your room by the river is booked for Friday; breakfast is at eight."
	cfg := `
model: { base_url: "{{MODEL}}", name: drafter }
agents:
  - name: drafter
    instructions: Draft the letter.
    stream_calls: true
    graph:
      start: D
      nodes:
        D: { llm: true }
        E: { end: true }
      edges:
        - { from: D, to: E }
`
	s := newBinaryStack(t, cfg, map[string]scriptedmodel.Script{"drafter": func(openaiRequest) scriptedmodel.Turn {
		return scriptedmodel.Turn{Content: reply, ContentPieces: 10, ContentDelay: 150 * time.Millisecond}
	}})
	run := s.start(workflows.AgentInput{Agent: "drafter", Task: "write to Ana"})
	events := startFollow(t, run.GetID()).events(t)

	texts := textEvents(events)
	require.GreaterOrEqual(t, len(texts), 2, "the reply came in pieces")
	node := texts[0].Node
	req := nodeOf(t, s.trace(run), node)
	require.Equal(t, signals.KindRequest, req.Kind)
	require.Equal(t, "D", req.GraphNode, "the request of graph node D")
	require.Contains(t, string(req.Output), reply, "the settled node carries the whole reply")
	require.True(t, strings.HasPrefix(reply, replyText(t, events, node)))

	settledAt, firstText := -1, -1
	for i, e := range events {
		switch {
		case e.Type == feed.TypeText && firstText < 0:
			firstText = i
		case e.Type == feed.TypeNode && e.Node.ID == node && e.Node.Status.Settled() && settledAt < 0:
			settledAt = i
		}
	}
	require.Positive(t, settledAt)
	require.Less(t, firstText, settledAt, "the text came before its node settled")
}
