package workflows

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// downFor is tool b down (HTTP 503, transient) until the harness's clock
// passes up, then answering with its arguments, behind a worker's breaker
// as the worker keeps one (activities/worker_breakers.go: five failed
// attempts in a row open it for the default cooldown, then one trial):
// it counts b's attempts that reached b while down.
type downFor struct {
	h        *harness
	up       time.Time
	worker   *policies.Breaker
	downHits int
}

func (d *downFor) tool(req activities.ToolRequest) (json.RawMessage, error) {
	if req.Tool.Name != "b" {
		return req.Args, nil
	}
	now := d.h.env.Now()
	if !d.worker.Allow(now) {
		return nil, temporal.NewNonRetryableApplicationError("circuit open on this worker: tool b", activities.CircuitOpenError, nil)
	}
	if now.Before(d.up) {
		d.downHits++
		d.worker.Record(now, false)
		return nil, temporal.NewApplicationError("tool b: HTTP 503: unavailable", "transient")
	}
	d.worker.Record(now, true)
	return req.Args, nil
}

// outageRun runs an agent whose tool b is down for down, with default
// policies, in a graph (graph) or free-form; it answers the harness, the
// result, b's calls while down, and the statuses seen each minute.
func outageRun(t *testing.T, graph bool, down time.Duration, set func(*config.Resolved)) (*harness, *downFor, []signals.Status, *AgentResult, error) {
	return outageRunOn(&testsuite.WorkflowTestSuite{}, t, graph, down, set)
}

// outageRunWith is outageRun with default policies, with what the test
// sends the run set up first (an edit, a cancellation).
func outageRunWith(t *testing.T, graph bool, down time.Duration, send func(*harness)) (*harness, *downFor, []signals.Status, *AgentResult, error) {
	return outageRunOn(&testsuite.WorkflowTestSuite{}, t, graph, down, nil, send)
}

// outageRunOn is outageRun in test suite s (a metered one, say).
func outageRunOn(s *testsuite.WorkflowTestSuite, t *testing.T, graph bool, down time.Duration, set func(*config.Resolved), send ...func(*harness)) (*harness, *downFor, []signals.Status, *AgentResult, error) {
	return outageRunIn(s, t, graph, down, set, AgentInput{Agent: "agent", Task: "go"}, send...)
}

// outageRunIn is outageRunOn with the run's input (a continued run's).
func outageRunIn(s *testsuite.WorkflowTestSuite, t *testing.T, graph bool, down time.Duration, set func(*config.Resolved), in AgentInput, send ...func(*harness)) (*harness, *downFor, []signals.Status, *AgentResult, error) {
	spec := echoSpec()
	if graph {
		spec.Agent.Graph = oneNodeGraph("b", map[string]any{"q": 1})
	}
	if set != nil {
		set(spec)
	}
	d := &downFor{worker: policies.NewBreaker(config.DefaultFailures, config.DefaultCooldown.D())}
	h := newHarnessOn(s, t, spec, nil, func(req activities.ToolRequest) (json.RawMessage, error) { return d.tool(req) })
	h.model = askUntilAnswered
	d.h, d.up = h, h.env.Now().Add(down)
	seen, res, err := watchedRun(h, in, send)
	return h, d, seen, res, err
}

// A tool down for three minutes, behind the worker's breaker, is waited
// out in both shapes: the run completes by itself, with no loop, no rung
// and no person; while it waits its status says so, and the tool is
// called once per cooldown, not once per step.
func TestAnOutageIsWaitedOutInBothShapes(t *testing.T) {
	for _, graph := range []bool{false, true} {
		h, d, seen, res, err := outageRun(t, graph, 3*time.Minute, nil)
		require.NoError(t, err, "graph %v", graph)
		require.Equal(t, ResultCompleted, res.Status)
		require.Empty(t, res.Escalations, "graph %v: no rung", graph)
		require.Empty(t, h.status().Loops, "graph %v: no loop", graph)
		require.Equal(t, signals.PhaseWaitingOutage, seen[0].Phase, "graph %v: after a minute the run waits the outage out", graph)
		require.Equal(t, "b", seen[0].Outage.Of)
		require.True(t, seen[0].Outage.NextProbe.After(seen[0].Outage.Since))
		// Five failed attempts open the worker's breaker (30s cooldown);
		// then one trial a cooldown until b is up: at most 5 + 3m/30s.
		require.GreaterOrEqual(t, d.downHits, 5)
		require.LessOrEqual(t, d.downHits, 5+6, "graph %v", graph)
		end := h.status()
		require.Nil(t, end.Outage, "graph %v: no outage once b answers", graph)
		require.Equal(t, signals.PhaseCompleted, end.Phase)
		// The first call fails as any call does while the breakers are
		// closed; the next, refused by the worker's open breaker, waits
		// the outage out, and completes.
		calls := graphCalls(h.trace())
		require.Len(t, calls, 2, "graph %v: one call a failure, one waited out, not one a probe", graph)
		require.Equal(t, signals.StatusFailed, calls[0].Status)
		require.Equal(t, signals.StatusCompleted, calls[1].Status)
		require.Contains(t, calls[1].Note, "waited out an outage of b")
	}
}

// A tool down longer than outage.max_wait: the run waits that long, then
// the call fails as one every breaker refuses, saying so, and the ladder
// climbs.
func TestAnOutagePastItsBoundClimbsTheLadder(t *testing.T) {
	for _, graph := range []bool{false, true} {
		h, _, _, _, err := outageRun(t, graph, time.Hour, func(spec *config.Resolved) {
			spec.Agent.Policies.Outage = &config.Outage{MaxWait: config.Duration(2 * time.Minute)}
			spec.Agent.Policies.MaxSteps = 8
		})
		require.Error(t, err, "graph %v", graph)
		var waited bool
		for _, n := range graphCalls(h.trace()) {
			waited = waited || strings.Contains(n.Error, "the run waited out this outage for")
		}
		require.True(t, waited, "graph %v: a call says the outage was waited out", graph)
	}
}

// A write that failed transiently may have taken effect: even when its
// failure opens the breaker, it settles failed, as before, and is not
// called again by itself.
func TestAWriteIsNotCalledAgainAfterAnOutage(t *testing.T) {
	h, _, _, _, _ := outageRun(t, false, time.Hour, func(spec *config.Resolved) {
		for i := range spec.Tools {
			if spec.Tools[i].Name == "b" {
				spec.Tools[i].Effect = config.EffectWrite
			}
		}
		spec.Agent.Policies.Breaker.Failures = 1 // the first failure opens the run's breaker
		spec.Agent.Policies.MaxSteps = 2
	})
	first := nodesByKind(h.trace(), signals.KindCall)[0]
	require.Equal(t, signals.StatusFailed, first.Status)
	require.Contains(t, first.Error, "HTTP 503")
	require.Empty(t, first.Note, "not waited out")
}

// askUntilAnswered is a model that asks for b again after each failure
// and is done once b answers.
func askUntilAnswered(req activities.ModelRequest) activities.ModelReply {
	for _, m := range req.Delta {
		if m.Role == "tool" && !strings.Contains(m.Content, `"error"`) {
			return activities.ModelReply{Content: `"done"`}
		}
	}
	return activities.ModelReply{ToolCalls: []activities.ToolCall{call("k", "b", `{"q":1}`)}}
}

// A tool that goes down with a fallback at hand: the call is served by
// the fallback at once, not after the outage or its breaker's cooldown,
// and the run waits for nothing.
func TestAFallbackServesACallWhoseToolGoesDown(t *testing.T) {
	for _, graph := range []bool{false, true} {
		h, d, seen, res, err := outageRun(t, graph, time.Hour, func(spec *config.Resolved) {
			for i := range spec.Tools {
				if spec.Tools[i].Name == "b" {
					spec.Tools[i].Fallback = "c"
				}
			}
		})
		require.NoError(t, err, "graph %v", graph)
		start := d.up.Add(-time.Hour)
		require.Less(t, h.env.Now().Sub(start), config.DefaultCooldown.D(), "graph %v: served before b's breaker would let a trial through", graph)
		require.Equal(t, ResultCompleted, res.Status)
		for _, st := range seen {
			require.NotEqual(t, signals.PhaseWaitingOutage, st.Phase, "graph %v: nothing to wait out", graph)
		}
		served := false
		for _, n := range graphCalls(h.trace()) {
			served = served || (n.Status == signals.StatusCompleted && n.FallbackOf == "b" && n.Tool == "c")
		}
		require.True(t, served, "graph %v: c served b's call", graph)
	}
}

// Each call that begins to wait out an outage is counted, by tool.
func TestAnOutageWaitIsCounted(t *testing.T) {
	suite, reader := meteredSuite()
	_, _, _, _, err := outageRunOn(suite, t, false, 3*time.Minute, nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, counted(t, reader, MetricOutageWaits, "tool", "b"), "one call waited the outage out")
}

// watchedRun runs h on in, with what the test sends it set up first, and
// answers the statuses seen each minute of its first ten with its end.
func watchedRun(h *harness, in AgentInput, send []func(*harness)) ([]signals.Status, *AgentResult, error) {
	var seen []signals.Status
	for m := 1; m <= 10; m++ {
		h.env.RegisterDelayedCallback(func() { seen = append(seen, h.status()) }, time.Duration(m)*time.Minute)
	}
	for _, f := range send {
		f(h)
	}
	res, err := h.run(in)
	return seen, res, err
}
