package testsuite

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// chatTurns is how many turns the long chat takes: each message and each
// answer take a few hundred tokens, so the whole chat is several times
// the model's window.
const chatTurns = 16

// wordy is message i of the long chat, a few hundred tokens long.
func wordy(i int) string { return fmt.Sprintf("message %d: %s", i, hexOf(i, 400)) }

// longWinded (a test double) answers the last message at length, naming
// it; a request without tools is unstuck's summary of the oldest turns.
func longWinded(req openaiRequest) scriptedmodel.Turn {
	if len(req.Tools) == 0 {
		return scriptedmodel.Reply(fmt.Sprintf("Summary: %d messages of chat.", len(req.Messages)))
	}
	users := userMessages(req)
	heard, _, _ := strings.Cut(users[len(users)-1], ":")
	return finalOutput(map[string]string{"heard": heard, "more": hexOf(len(req.Messages)+1000, 400)})
}

// A long chat on the real server, against a model (a test double) whose
// window is 3,000 tokens and which refuses a longer prompt: the model
// activity counts each prompt with the model's tokenizer, the chat's
// oldest turns are summarized as it grows (keep_last 1: a turn here is
// about a quarter of the prompt budget), across continue-as-new, every
// message is answered, and every prompt stays within the budget.
func TestALongChatStaysInsideTheModelsWindow(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "{{MODEL}}", name: chatty, context_window: 3000, max_output_tokens: 500 }
agents:
  - { name: chatter, instructions: Chat., conversation: { idle_timeout: 1h }, policies: { context: { keep_last: 1 } } }
`
	s := newStackWith(t, cfg, map[string]scriptedmodel.Script{"chatty": longWinded}, scriptedmodel.WithContextWindow(3000))
	run := s.start(workflows.AgentInput{Agent: "chatter", Task: wordy(0)})
	for i := 1; i < chatTurns; i++ {
		awaitOutputs(t, s, run, i)
		sendMessage(t, s, latestRun{run}, wordy(i))
	}
	awaitOutputs(t, s, run, chatTurns)

	tr := s.trace(latestRun{run})
	outputs := nodesOf(tr, signals.KindOutput)
	require.Len(t, outputs, chatTurns)
	for i, o := range outputs {
		var out struct{ Heard string }
		require.NoError(t, json.Unmarshal(o.Output, &out))
		require.Equal(t, fmt.Sprintf("message %d", i), out.Heard, "turn %d answers its own message", i)
	}
	prompts := s.model.PromptTokens()
	require.LessOrEqual(t, slices.Max(prompts), 2000, "every prompt within the prompt budget (0.8 of the 2,500 tokens a 500-token reply leaves)")
	compactions, refused := compactionsOf(t, tr)
	require.Positive(t, compactions, "the chat outgrew the window and was compacted")
	require.Zero(t, refused, "compacted before the model refused")
	summaries := nodesOf(tr, signals.KindSummary)
	require.GreaterOrEqual(t, len(summaries), 2, "the oldest turns were summarized, and again as the chat grew")
	require.Positive(t, s.status(latestRun{run}).Generation, "the chat continued as new, its summaries in the trace it carried")
	t.Logf("%d turns, %d model requests, largest prompt %d tokens, %d compactions, %d summaries",
		chatTurns, len(prompts), slices.Max(prompts), compactions, len(summaries))
}
