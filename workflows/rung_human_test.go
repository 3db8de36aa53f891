package workflows

import (
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// The ladder's human rung continues as new while it waits, in both run
// shapes: the next generation waits at the same human node, a reply
// there lets the run go on, and a timeout there climbs to the next rung.

func stubbornRung() *config.Resolved {
	spec := stubbornSpec("human", "stop")
	spec.Agent.Policies.HumanTimeout = config.Duration(time.Hour)
	return spec
}

// rungCarried runs a stubborn agent to its human rung, where it
// continues as new while waiting; the model then answers content.
func rungCarried(t *testing.T, content string) ([]activities.ModelReply, AgentInput, *waitingResume) {
	book := call("k", "book_flight", `{"flight_id":"UA1","passengers":1}`)
	replies := repeat(3, book, activities.ModelReply{Content: content})
	h := newHarness(t, stubbornRung(), replies, failingTool)
	h.suggestWhileWaitingBy()
	_, _ = h.run(AgentInput{Agent: "travel", Task: "book"})
	next := continuedInput(t, h)
	return replies, next, next.Continued.Resume.Waiting
}

func TestHumanRungContinuesAsNewWhileWaiting(t *testing.T) {
	replies, next, w := rungCarried(t, "booked another way")
	require.NotNil(t, w.Rung, "the rung's wait is carried")
	require.Equal(t, signals.StatusPending, statuses(next.Continued)[w.Human])
	require.Equal(t, signals.KindEscalation, next.Continued.node(w.Rung.Escalation).Kind)

	h2 := newHarness(t, stubbornRung(), replies[3:], failingTool)
	var got updateResult
	h2.reply(time.Minute, "Try the 9am flight instead.", &got)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, got.rejected)
	require.Equal(t, w.Human, got.result.(signals.ReplyResult).NodeID, "the reply lands at the carried node")
	require.JSONEq(t, `"booked another way"`, string(res.Output))
	require.Equal(t, []string{"human"}, actions(res.Escalations))
	last := h2.requests[0].Delta
	require.Contains(t, last[len(last)-1].Content, "Try the 9am flight instead.")
	require.Len(t, nodesByKind(h2.trace(), signals.KindHuman), 1, "no second human node")
}

func TestHumanRungCarriedKeepsItsDeadlineAndClimbs(t *testing.T) {
	replies, next, w := rungCarried(t, "x")
	start := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	w.Since[w.Human] = start.Add(-50 * time.Minute)

	h2 := newHarness(t, stubbornRung(), replies[3:], failingTool)
	h2.env.SetStartTime(start)
	_, err := h2.run(next)
	rep := stopReport(t, err)
	require.Equal(t, []string{"human", "stop"}, actions(rep.Escalations), "no reply: the ladder climbs from the carried rung")
	human := nodesByKind(h2.trace(), signals.KindHuman)
	require.Len(t, human, 1)
	require.Contains(t, human[0].Error, "no reply within human_timeout")
	require.WithinDuration(t, start.Add(10*time.Minute), human[0].At, time.Minute, "the deadline stays the first generation's")
}

func TestRunsBeforeRungWaitsGoOnWaitingAtTheRung(t *testing.T) {
	book := call("k", "book_flight", `{"flight_id":"UA1","passengers":1}`)
	h := newHarness(t, stubbornRung(), repeat(3, book, activities.ModelReply{Content: "done"}), failingTool)
	h.before(versionRungWaits)
	h.suggestWhileWaitingBy()
	var got updateResult
	h.reply(2*time.Minute, "go on", &got)
	_, _ = h.run(AgentInput{Agent: "travel", Task: "book"})
	require.NoError(t, got.rejected)
	next := continuedInput(t, h)
	require.Nil(t, next.Continued.Resume, "the wait went on in its generation")
	var humans []signals.NodeStatus
	for _, n := range next.Continued.Nodes {
		if n.Kind == signals.KindHuman && n.Status != signals.StatusSkipped { // skipped: the ignored wake-up
			humans = append(humans, n.Status)
		}
	}
	require.Equal(t, []signals.NodeStatus{signals.StatusCompleted}, humans)
}

// failingFirst fails tool a n times (persistent), then answers ok.
func failingFirst(n int32) func(activities.ToolRequest) (json.RawMessage, error) {
	var calls atomic.Int32
	return func(req activities.ToolRequest) (json.RawMessage, error) {
		if calls.Add(1) <= n {
			return nil, temporal.NewNonRetryableApplicationError("tool a: HTTP 409: busy", "persistent", nil)
		}
		return json.RawMessage(`{"ok":true}`), nil
	}
}

func TestGraphHumanRungContinuesAsNewWhileWaiting(t *testing.T) {
	spec := func() *config.Resolved {
		s := echoSpec()
		s.Agent.Policies.Loop = config.LoopPolicy{Window: 16, Repeats: 3}
		s.Agent.Policies.Escalation = []string{"human", "stop"}
		s.Agent.Policies.HumanTimeout = config.Duration(time.Hour)
		s.Agent.Graph = &config.Graph{
			Start: "T",
			Nodes: map[string]config.GraphNode{"T": {Tool: "a", OutputPath: "†state.a"}, "E": {End: true}},
			Edges: []config.GraphEdge{{From: "T", To: "E", When: "ok"}, {From: "T", To: "T"}},
		}
		return s
	}
	tool := failingFirst(3)
	h := newHarness(t, spec(), nil, tool)
	h.suggestWhileWaitingBy()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "t"})
	next := continuedInput(t, h)
	w := next.Continued.Resume.Waiting
	require.NotNil(t, w.Rung)
	require.Equal(t, "T", w.Rung.Where)
	require.NotNil(t, w.Rung.Visit)
	require.False(t, w.Rung.Visit.OK, "the failed visit's edge is taken once the rung is answered")

	h2 := newHarness(t, spec(), nil, tool)
	var got updateResult
	h2.reply(time.Minute, "It is free now.", &got)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.NoError(t, got.rejected)
	require.Equal(t, "completed", string(res.Status))
	require.JSONEq(t, `{"a": {"ok": true}}`, string(res.Output), "T failed, was visited again and succeeded")
	require.Equal(t, []string{"human"}, actions(res.Escalations))
}
