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
// node D) carries the whole reply. The model writes the first line and
// holds the rest until the follower printed it, so the text is seen
// while the reply is still being written, however late the follower came.
func TestFollowerReadsAGraphLLMNodesReplyAsWritten(t *testing.T) {
	t.Parallel()
	const reply = "Dear Ana,\nyour room by the river is booked for Friday; breakfast is at eight."
	first, rest, _ := strings.Cut(reply, "\n")
	held := make(chan struct{})
	s := writerGraphStack(t, "drafter", "D", "stream_calls: true", scriptedmodel.Turn{Content: reply, ContentHold: held})
	run := s.start(workflows.AgentInput{Agent: "drafter", Task: "write to Ana"})
	f := startFollow(t, run.GetID())
	require.Eventually(t, func() bool { return strings.Contains(followedText(f.seen(t)), first) },
		time.Minute, 50*time.Millisecond, "the follower prints the first line while the model holds the rest")
	require.NotContains(t, followedText(f.seen(t)), rest, "the rest is not written yet")
	close(held)
	events := f.events(t)

	texts := textEvents(events)
	require.NotEmpty(t, texts)
	node := texts[0].Node
	req := nodeOf(t, s.trace(run), node)
	require.Equal(t, signals.KindRequest, req.Kind)
	require.Equal(t, "D", req.GraphNode, "the request of graph node D")
	require.Contains(t, string(req.Output), strings.ReplaceAll(reply, "\n", `\n`), "the settled node carries the whole reply")
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

// followedText is every text a follower printed, in order.
func followedText(events []feed.Event) string {
	var b strings.Builder
	for _, t := range textEvents(events) {
		b.WriteString(t.Delta)
	}
	return b.String()
}

// `unstuck chat` with a graph conversation shows its llm node's reply as
// it is written, a line at a time: its first line on the screen while the
// model holds the rest.
func TestChatShowsAGraphNodesReplyAsWritten(t *testing.T) {
	t.Parallel()
	const greeting = "Hello Ana! I find rooms in Lisbon.\nWhich part of the city would you like to stay in?"
	held := make(chan struct{})
	s := writerGraphStack(t, "greeter", "G", "conversation: { idle_timeout: 1m }", scriptedmodel.Turn{Content: greeting, ContentHold: held})
	term := startTerminal(t, "unstuck", "chat", "greeter", "--id", s.queue+"-chat", "--task-queue", s.queue, "--address", serverAddress)
	term.waitFor("Talking to greeter.")
	term.typeLine("hello")
	first, rest, _ := strings.Cut(greeting, "\n")
	term.waitFor("agent> " + first + "\n")
	require.NotContains(t, term.screen(), rest, "the rest is not written yet")
	close(held)
	term.waitFor(rest + "\n")
	// The turn's output follows (the end node's, the graph's state), then
	// the prompt for the next message.
	term.waitUntil(func(screen string) bool { return strings.HasSuffix(screen, "\nyou> ") }, "the chat waits for the next message")
	require.Equal(t, 1, strings.Count(term.screen(), rest), "the reply shows once")
	term.leave()
}

// writerGraphStack serves agent, a graph of one llm node (node) then its
// end, with the agent's setting given (stream_calls or conversation), on
// the worker binary; its model writes turn.
func writerGraphStack(t *testing.T, agent, node, setting string, turn scriptedmodel.Turn) *stack {
	cfg := `
model: { base_url: "{{MODEL}}", name: ` + agent + ` }
agents:
  - name: ` + agent + `
    instructions: Write.
    ` + setting + `
    graph:
      start: ` + node + `
      nodes:
        ` + node + `: { llm: true }
        E: { end: true }
      edges:
        - { from: ` + node + `, to: E }
`
	return newBinaryStack(t, cfg, map[string]scriptedmodel.Script{agent: func(openaiRequest) scriptedmodel.Turn { return turn }})
}
