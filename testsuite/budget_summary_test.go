package testsuite

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// summaryWallTime is the wall time of the run that needs a summary past
// it: long enough for the steps before the summary on a busy machine.
const summaryWallTime = 15 * time.Second

// A run that needs a summary of its oldest turns once its wall time is
// spent does not ask for it (the summary is a model request the budget
// must allow): the request keeps its prompt budget and takes the budget
// rung. A person raises the wall time, and only then is the summary
// asked and the run completes (version summary-after-raise).
//
// The wall time is the limit a summary can cross where its request did
// not: the budget counts the summary as the request it stands beside
// (Budget.Beside, workflows/budget), with the same spend (a prompt counted over its budget
// or refused spends nothing), so a token or cost limit that lets the
// request be sent lets its summary be asked. Only the time the model took
// to refuse the request's prompt separates the two checks: the scripted
// model holds that refusal until the wall time is spent. The input_tokens
// limit is there to show a raise of it is not taken.
func TestASummaryPastTheWallTimeIsAskedAfterARaise(t *testing.T) {
	t.Parallel()
	cfg := fmt.Sprintf(`
model: { base_url: "{{MODEL}}", name: narrow, context_window: 128000, max_output_tokens: 1000 }
tools:
  - { name: lookup, builtin: echo, parameters: { type: object } }
agents:
  - name: counter
    instructions: Look things up.
    tools: [lookup]
    policies:
      context: { keep_last: 1 }
      escalation: [human, stop]
      budget: { wall_time: %s, input_tokens: 100000 }
`, summaryWallTime)
	var spent atomic.Pointer[time.Time] // when the run's wall time is spent
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"narrow": narrowWindow(narrowTurns, 6, &spent)})
	// The run starts after now, so its wall time is spent before at.
	at := time.Now().Add(summaryWallTime + 2*time.Second)
	spent.Store(&at)
	run := s.start(workflows.AgentInput{Agent: "counter", Task: "look six things up"})

	// The held refusal is answered once the wall time is spent: the
	// summary is not asked, the request takes the budget rung.
	require.Eventually(t, func() bool { p, _ := s.phase(run); return p == signals.PhaseAwaitingHuman },
		summaryWallTime+40*time.Second, 100*time.Millisecond, "the request waits at the budget rung")
	tr := s.trace(run)
	require.Empty(t, nodesOf(tr, signals.KindSummary), "no summary before the raise")
	b := nodesOf(tr, signals.KindBudget)
	require.Len(t, b, 1)
	require.Equal(t, signals.StatusPending, b[0].Status, "waiting for a person")
	require.Contains(t, string(b[0].Args), `"limit":"wall_time"`)
	// Two refusals: refused, cleared, refused again with nothing more to
	// clear. One only: the wall time was spent before the request was
	// sent again (a machine too slow for this wall time).
	require.Equal(t, 2, windowRefusals(s.model.Requests()), "refusals before the rung")

	// A raise of another limit leaves the run at the same rung.
	err := s.update(run, signals.Budget, signals.BudgetRequest{Raise: &signals.BudgetRaise{InputTokens: 1000}})
	require.ErrorContains(t, err, "a raise must raise wall_time")
	before := s.model.RequestCount()
	require.NoError(t, s.update(run, signals.Budget, signals.BudgetRequest{
		Audit: signals.Audit{By: "ops", Reason: "let it summarize"}, Raise: &signals.BudgetRaise{WallTime: "1h"}}))
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"looked_up": 6}`, string(res.Output))

	tr = s.trace(run)
	b = nodesOf(tr, signals.KindBudget)
	require.Len(t, b, 1, "one rung: the summary after the raise fits")
	require.Equal(t, signals.StatusCompleted, b[0].Status)
	require.Contains(t, string(b[0].Output), `"by":"ops"`)
	summaries := nodesOf(tr, signals.KindSummary)
	require.Len(t, summaries, 1)
	require.Equal(t, signals.StatusCompleted, summaries[0].Status)
	require.True(t, summaries[0].At.After(b[0].At), "the summary comes after the rung")
	require.Greater(t, indexOf(tr, summaries[0].ID), indexOf(tr, b[0].ID))
	reqs := s.model.Requests()
	asked := 0
	for i, r := range reqs {
		if len(r.Tools) == 0 {
			asked++
			require.GreaterOrEqual(t, i, before, "the summary was asked after the raise")
		}
	}
	require.Equal(t, 1, asked, "one summary request reached the model")

	// The request that needed it: cleared, not summarized for the budget,
	// summarized after the raise.
	var compactions []struct {
		ClearedBefore int    `json:"cleared_before"`
		Refused       bool   `json:"refused"`
		Summary       string `json:"summary"`
		OverBudget    bool   `json:"over_budget"`
	}
	for _, n := range nodesOf(tr, signals.KindRequest) {
		var rec struct {
			Compactions json.RawMessage `json:"compactions"`
		}
		require.NoError(t, json.Unmarshal(n.Output, &rec))
		if rec.Compactions != nil {
			require.Nil(t, compactions, "one request compacted")
			require.NoError(t, json.Unmarshal(rec.Compactions, &compactions))
		}
	}
	require.Len(t, compactions, 3, "%+v", compactions)
	require.True(t, compactions[0].Refused)
	require.Positive(t, compactions[0].ClearedBefore)
	require.True(t, compactions[1].OverBudget, "not summarized for the budget")
	require.Empty(t, compactions[1].Summary)
	require.Equal(t, summaries[0].ID, compactions[2].Summary, "summarized after the raise")
	require.False(t, compactions[2].OverBudget)

	// Spent: every request the model answered (refusals are not sent),
	// the summary's among them, and the six lookups; the raise counted.
	require.Equal(t, 3, windowRefusals(reqs), "the third after the raise")
	require.Equal(t, int64(len(reqs)-3), res.Spend.ModelRequests)
	require.Equal(t, int64(6), res.Spend.ToolCalls)
	require.Positive(t, res.Spend.InputTokens)
	require.LessOrEqual(t, res.Spend.InputTokens, int64(100000))
	require.Equal(t, (summaryWallTime + time.Hour).String(), res.Spend.Limits["wall_time"], "the raise counted")
	st := s.status(run)
	require.Equal(t, signals.PhaseCompleted, st.Phase)
	require.Equal(t, res.Spend.ModelRequests, st.Spend.ModelRequests)
	require.Equal(t, res.Spend.InputTokens, st.Spend.InputTokens)
	t.Logf("%d model requests (3 refused, 1 summary), %d input tokens, wall time raised to %v", len(reqs), res.Spend.InputTokens, res.Spend.Limits["wall_time"])
	recordAndReplay(t, run, "budget_summary_after_raise")
}

// windowRefusals counts the requests narrowWindow refused as over its
// window.
func windowRefusals(reqs []openai.ChatCompletionRequest) int {
	n := 0
	for _, r := range reqs {
		if len(r.Tools) > 0 && scriptedmodel.AssistantTurns(r) >= narrowTurns {
			n++
		}
	}
	return n
}

// narrowTurns is how many of its own replies narrowWindow's window cannot
// hold: a conversation with that many is refused.
const narrowTurns = 4

// indexOf is the position of node id in the trace, -1 when absent.
func indexOf(tr signals.Trace, id string) int {
	for i, n := range tr.Nodes {
		if n.ID == id {
			return i
		}
	}
	return -1
}

// narrowWindow (a test double) is counting(steps) on a model whose window
// holds fewer than turns of its own replies: a conversation with turns
// assistant messages is refused as OpenAI refuses a prompt over the
// window (400, "maximum context length"), and a request without tools
// (unstuck's summary of the oldest turns) is answered with a summary.
// A refusal of a conversation whose old results were cleared already,
// before any summary, is held until *spent: the time the model takes to
// refuse it is the time in which the run's wall time runs out.
func narrowWindow(turns, steps int, spent *atomic.Pointer[time.Time]) scriptedmodel.Script {
	count := counting(steps)
	return func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		if len(req.Tools) == 0 {
			return scriptedmodel.Reply(fmt.Sprintf("Summary: %d messages of lookups, all answered.", len(req.Messages)))
		}
		n := scriptedmodel.AssistantTurns(req)
		if n < turns {
			return count(req)
		}
		refusal := scriptedmodel.Fail(400, fmt.Sprintf("This model's maximum context length is %d turns. However, your messages resulted in %d turns. Please reduce the length of the messages.", turns-1, n))
		cleared, summarized := false, false
		for _, m := range req.Messages {
			cleared = cleared || m.Role == openai.ChatMessageRoleTool && strings.Contains(m.Content, "cleared: ask for it again")
			summarized = summarized || m.Role == openai.ChatMessageRoleUser && strings.Contains(m.Content, "were summarized")
		}
		if cleared && !summarized {
			refusal.Delay = time.Until(*spent.Load())
		}
		return refusal
	}
}
