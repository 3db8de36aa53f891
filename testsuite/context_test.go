package testsuite

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// contextSteps is how many lookups the counting runs make: about 600
// tokens of result each, far over an 8k window together.
const contextSteps = 40

// An agent whose model has an 8k-token window (the scripted model refuses
// a longer prompt with OpenAI's context_length_exceeded) completes a run
// of 40 results of about 600 tokens each when it compacts
// (policies.context): its prompts stay under the window. The same agent
// without the policy is refused by the model and stops.
func TestARunKeepsItsPromptsInsideTheModelsWindow(t *testing.T) {
	t.Parallel()
	lookup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var args struct{ I int }
		_ = json.Unmarshal(body, &args)
		fmt.Fprintf(w, `{"i": %d, "data": %q}`, args.I, hexOf(args.I, 512))
	}))
	defer lookup.Close()
	cfg := fmt.Sprintf(`
model: { base_url: "{{MODEL}}", name: counter, context_window: 8000, max_output_tokens: 1000 }
tools:
  - { name: lookup, http: { url: %q }, parameters: { type: object } }
agents:
  - { name: compacting, instructions: Count., tools: [lookup], policies: { context: { keep_last: 3 } } }
  - { name: plain, instructions: Count., tools: [lookup] }
  - name: overstated
    instructions: Count.
    tools: [lookup]
    model: { context_window: 12000 }
    policies: { context: { keep_last: 3 } }
`, lookup.URL)
	s := newStackWith(t, cfg, map[string]scriptedmodel.Script{"counter": lookupCounter(contextSteps)}, scriptedmodel.WithContextWindow(8000))

	run := s.start(workflows.AgentInput{Agent: "compacting", Task: "count"})
	first := run.GetRunID() // before the result: waiting follows the chain
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf(`{"turns": %d}`, contextSteps), string(res.Output))
	prompts := s.model.PromptTokens()
	require.Less(t, slices.Max(prompts), 8000, "no prompt reached the window")
	tr := s.trace(run)
	compactions, refused := compactionsOf(t, tr)
	require.Positive(t, compactions, "the conversation was compacted")
	require.Zero(t, refused)
	summaries := nodesOf(tr, signals.KindSummary)
	require.NotEmpty(t, summaries, "clearing results was not enough: the oldest turns were summarized")
	t.Logf("%d requests, largest prompt %d tokens, %d compactions, %d summaries", len(prompts), slices.Max(prompts), compactions, len(summaries))
	recordAndReplay(t, s.client.GetWorkflow(context.Background(), run.GetID(), generationWith(t, run.GetID(), first, "Summarize")), "context_compacted")

	plain := s.start(workflows.AgentInput{Agent: "plain", Task: "count"})
	_, err = s.result(plain)
	require.ErrorContains(t, err, "maximum context length is 8000 tokens")
	require.ErrorContains(t, err, "give the agent policies.context")

	// A window written larger than the model's: the provider refuses
	// prompts counted under the budget, and the run compacts all the same.
	over := s.start(workflows.AgentInput{Agent: "overstated", Task: "count"})
	res, err = s.result(over)
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf(`{"turns": %d}`, contextSteps), string(res.Output))
	_, refused = compactionsOf(t, s.trace(over))
	require.Positive(t, refused, "compacted after the provider refused")
}

// compactionsOf counts the compactions the run's requests took, and those
// of them the provider had refused.
func compactionsOf(t *testing.T, tr signals.Trace) (all, refused int) {
	t.Helper()
	for _, n := range nodesOf(tr, signals.KindRequest) {
		var rec struct{ Compactions []struct{ Refused bool } }
		require.NoError(t, json.Unmarshal(n.Output, &rec))
		for _, c := range rec.Compactions {
			all++
			if c.Refused {
				refused++
			}
		}
	}
	return all, refused
}

// lookupCounter (a test double) looks up 0, 1, ... steps-1, counting from
// its last result, each call with a note of about 100 tokens (so the
// model's own turns alone outgrow the window), then gives the output. A
// request without tools is unstuck's summary of the oldest turns.
func lookupCounter(steps int) scriptedmodel.Script {
	return func(req openaiRequest) scriptedmodel.Turn {
		if len(req.Tools) == 0 {
			return scriptedmodel.Reply(fmt.Sprintf("Summary: %d messages of lookups, all answered.", len(req.Messages)))
		}
		if i := scriptedmodel.NextStep(req); i < steps {
			return scriptedmodel.CallTurn("lookup", map[string]any{"i": i, "note": hexOf(i+1000, 128)})
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"turns": steps})
	}
}

// hexOf is n bytes, as hex, that differ for each i.
func hexOf(i, n int) string {
	var out []byte
	h := fnv.New64a()
	for len(out) < n {
		fmt.Fprintf(h, "%d/%d", i, len(out))
		out = h.Sum(out)
	}
	return strings.ToLower(hex.EncodeToString(out[:n]))
}

// generationWith is the first run of the chain whose history schedules
// the activity named.
func generationWith(t *testing.T, workflowID, first, activity string) string {
	t.Helper()
	for rid := first; rid != ""; {
		next, found := "", false
		iter := serverClient.GetWorkflowHistory(context.Background(), workflowID, rid, false, 0)
		for iter.HasNext() {
			ev, err := iter.Next()
			require.NoError(t, err)
			if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == activity {
				found = true
			}
			if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
				next = a.GetNewExecutionRunId()
			}
		}
		if found {
			return rid
		}
		rid = next
	}
	t.Fatalf("no run of %s scheduled %s", workflowID, activity)
	return ""
}
