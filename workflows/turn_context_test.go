package workflows

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A long chat with a small model window (policies.context): the model
// activity counts every prompt (a test double, promptWindow), and the
// conversation is compacted, turn after turn, into summaries of its
// oldest turns that stay in the trace and travel with the run.

// windowChat is spec as a conversation on a model with a 2,000-token
// window, compacting at 80% of what a 200-token reply leaves (1,440
// tokens) and keeping its last 2 steps whole.
func windowChat(spec *config.Resolved) *config.Resolved {
	spec.Model.ContextWindow, spec.Model.MaxOutputTokens = 2000, 200
	spec.Agent.Policies.Context = &config.ContextPolicy{CompactAt: 0.8, KeepLast: 2}
	return spec
}

// chatter is about 170 tokens of words that differ for each i.
func chatter(who string, i int) string {
	return fmt.Sprintf("%s %d: %s", who, i, strings.Repeat(fmt.Sprintf("word%d ", i), 100))
}

// longChat runs one generation of the chat, which answers the turns
// numbered turns (the first, the task's, when the run starts here): the
// model answers each at length, the messages come every 10 minutes, and
// Temporal suggests continue-as-new after the last. seen is the
// conversation the model activity already has (the generation before's).
func longChat(t *testing.T, spec *config.Resolved, in AgentInput, turns []int, seen []activities.Message) *harness {
	var replies []activities.ModelReply
	for _, i := range turns {
		replies = append(replies, finalAnswer(fmt.Sprintf("f%d", i), chatter("answer", i)))
	}
	h := newHarness(t, spec, replies, okTool)
	h.window = &promptWindow{sent: seen}
	h.summaries(activities.SummaryReply{})
	messages := turns
	if in.Continued == nil {
		messages = turns[1:]
	}
	got := make([]updateResult, len(messages))
	for k, i := range messages {
		h.message(time.Duration(k+1)*10*time.Minute, chatter("user", i), &got[k])
	}
	h.env.RegisterDelayedCallback(func() {
		h.env.SetContinueAsNewSuggested(true)
		h.env.SignalWorkflow(signals.Reply, map[string]any{"text": "wake up", "by": "someone"})
	}, time.Duration(len(messages)+1)*10*time.Minute)
	_, _ = h.run(in)
	for _, m := range got {
		require.NoError(t, m.rejected)
	}
	return h
}

// Twelve turns over two generations, each about 350 tokens: five would
// fill the window. Every prompt sent stays within the prompt budget; the
// oldest turns give way to summaries, kept in the trace and carried into
// the next generation, whose prompts read the task, the latest summary,
// then the latest turns.
func TestALongConversationStaysInsideItsWindow(t *testing.T) {
	eachShape(t, config.DoubleTextEnqueue, func(t *testing.T, spec *config.Resolved) {
		spec = windowChat(spec)
		budget := spec.PromptBudget()
		require.Equal(t, 1440, budget)

		h := longChat(t, spec, AgentInput{Agent: "travel", Task: chatter("user", 0)}, []int{0, 1, 2, 3, 4, 5}, nil)
		next := continuedInput(t, h)
		summaries := nodesOfKind(h.trace(), signals.KindSummary)
		require.NotEmpty(t, summaries, "the first generation's chat outgrew the window")

		h2 := longChat(t, spec, next, []int{6, 7, 8, 9, 10, 11}, buildConversation(next.Continued))
		_ = continuedInput(t, h2)
		tr := h2.trace()
		require.Len(t, validOutputs(tr), 12, "every message answered")
		later := nodesOfKind(tr, signals.KindSummary)
		require.Greater(t, len(later), len(summaries), "the second generation compacted too")
		require.Equal(t, summaries[0].ID, later[0].ID, "the summaries are carried in the trace")

		for i, w := range []*promptWindow{h.window, h2.window} {
			require.Len(t, w.sizes, 6, "generation %d: one prompt sent per turn", i+1)
			require.LessOrEqual(t, slices.Max(w.sizes), budget, "generation %d: no prompt over the budget", i+1)
		}
		last := h2.window.prompt
		said := userTexts(last)
		require.Equal(t, chatter("user", 0), said[0], "the task first")
		require.Contains(t, said[1], "were summarized", "then the latest summary")
		require.Equal(t, chatter("user", 11), said[len(said)-1], "and the latest message")
		require.NotContains(t, said, chatter("user", 6), "an old turn gave way to the summary")
	})
}
