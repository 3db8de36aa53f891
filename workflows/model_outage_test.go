package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// modelsDown are the agent's models down until the harness's clock
// passes up: each request is refused as the worker's breaker refuses
// one (final, since the run waits outages out itself), and counted per
// place in the agent's list.
type modelsDown struct {
	h     *harness
	up    time.Time
	asked map[int]int
}

func (d *modelsDown) fail(req activities.ModelRequest) error {
	if !d.h.env.Now().Before(d.up) {
		return nil
	}
	d.asked[req.Fallback]++
	return temporal.NewNonRetryableApplicationError("circuit open on this worker: model unavailable", activities.ModelCircuitOpenError, nil)
}

// modelOutageRun runs an agent whose models (its own and a fallback) are
// down for down, with default policies, in a graph (an llm node) or
// free-form; it answers the harness, the models' requests while down, the
// statuses seen each minute, the result and the error.
func modelOutageRun(t *testing.T, graph bool, down time.Duration, set func(*config.Resolved), send ...func(*harness)) (*harness, *modelsDown, []signals.Status, *AgentResult, error) {
	return modelOutageRunIn(t, graph, down, set, AgentInput{Agent: "agent", Task: "go"}, send...)
}

// modelOutageRunIn is modelOutageRun with the run's input (a continued
// run's).
func modelOutageRunIn(t *testing.T, graph bool, down time.Duration, set func(*config.Resolved), in AgentInput, send ...func(*harness)) (*harness, *modelsDown, []signals.Status, *AgentResult, error) {
	spec := echoSpec()
	spec.Model.Fallbacks = []config.ModelFallback{{Name: "other"}}
	if graph {
		llmGraph(spec, 1)
	}
	if set != nil {
		set(spec)
	}
	h := newHarness(t, spec, []activities.ModelReply{{Content: `"done"`}}, okEcho)
	d := &modelsDown{h: h, up: h.env.Now().Add(down), asked: map[int]int{}}
	h.modelFails = d.fail
	seen, res, err := watchedRun(h, in, send)
	return h, d, seen, res, err
}

// The model and its fallback down for three minutes: the run waits the
// outage out in both shapes and completes by itself, with no rung and no
// person, spending no step; while it waits its status says so, and each
// model is asked about once a cooldown, not in a loop.
func TestAModelOutageIsWaitedOutInBothShapes(t *testing.T) {
	for _, graph := range []bool{false, true} {
		_, _, _, control, err := modelOutageRun(t, graph, 0, nil)
		require.NoError(t, err, "graph %v", graph)
		h, d, seen, res, err := modelOutageRun(t, graph, 3*time.Minute, nil)
		require.NoError(t, err, "graph %v", graph)
		require.Equal(t, ResultCompleted, res.Status, "graph %v", graph)
		require.Empty(t, res.Escalations, "graph %v: no rung", graph)
		require.Equal(t, control.Steps, res.Steps, "graph %v: the steps of a run with no outage, however long it waited", graph)
		require.Equal(t, signals.PhaseWaitingOutage, seen[0].Phase, "graph %v: after a minute the run waits the outage out", graph)
		require.Equal(t, "model scripted:test", seen[0].Outage.Of)
		require.True(t, seen[0].Outage.NextProbe.After(seen[0].Outage.Since))
		// One probe of each model a cooldown (30s, jittered by a quarter)
		// over three minutes: about six, never one a moment.
		for place, n := range d.asked {
			require.GreaterOrEqual(t, n, 4, "graph %v: model %d", graph, place)
			require.LessOrEqual(t, n, 9, "graph %v: model %d", graph, place)
		}
		end := h.status()
		require.Nil(t, end.Outage, "graph %v: no outage once the model answers", graph)
		require.Equal(t, signals.PhaseCompleted, end.Phase)
		for _, req := range h.requests {
			require.True(t, req.WaitsOutage, "graph %v: the worker is told the run waits outages out", graph)
		}
		var note string
		for _, n := range h.trace().Nodes {
			if n.Kind == signals.KindRequest && strings.Contains(n.Note, "waited out an outage of model scripted:test") {
				note = n.Note
			}
		}
		require.NotEmpty(t, note, "graph %v: the request says it waited", graph)
	}
}

// Models down past the model's outage.max_wait: the run waits that long,
// then stops as a failed model request does, saying it waited.
func TestAModelOutagePastItsBoundStops(t *testing.T) {
	for _, graph := range []bool{false, true} {
		_, _, _, _, err := modelOutageRun(t, graph, time.Hour, func(spec *config.Resolved) {
			spec.Model.Outage = &config.Outage{MaxWait: config.Duration(2 * time.Minute)}
		})
		rep := stopReport(t, err)
		require.Contains(t, rep.Reason, "model request failed", "graph %v", graph)
		require.Contains(t, rep.LastError, "the run waited out this outage for", "graph %v", graph)
	}
}

// A refusal is not an outage: a bad key stops the run at once, as before.
func TestARefusedModelIsNoOutage(t *testing.T) {
	spec := echoSpec()
	h := newHarness(t, spec, nil, okEcho)
	h.modelFails = func(activities.ModelRequest) error {
		return temporal.NewNonRetryableApplicationError("HTTP 401: bad key", activities.ModelRejectedError, nil)
	}
	var seen []signals.Status
	h.env.RegisterDelayedCallback(func() { seen = append(seen, h.status()) }, time.Second)
	_, err := h.run(AgentInput{Agent: "agent", Task: "go"})
	rep := stopReport(t, err)
	require.Contains(t, rep.LastError, "bad key")
	require.NotContains(t, rep.LastError, "outage")
	require.Empty(t, seen, "the run ended before a second passed")
}

// A run recorded before model-outage stops once its models' retries are
// spent, as it did, and does not tell the worker it waits outages out.
func TestAModelOutageBeforeTheChangeStops(t *testing.T) {
	spec := echoSpec()
	h := newHarness(t, spec, nil, okEcho)
	h.before(versionModelOutage)
	d := &modelsDown{h: h, up: h.env.Now().Add(time.Hour), asked: map[int]int{}}
	h.modelFails = d.fail
	_, err := h.run(AgentInput{Agent: "agent", Task: "go"})
	rep := stopReport(t, err)
	require.Contains(t, rep.Reason, "model request failed")
	require.NotContains(t, rep.LastError, "outage")
	require.Equal(t, 1, d.asked[0])
}

// Signals flood in while the run waits out its models' outage: it
// continues as new, and the next generation asks again and waits again,
// from the outage's first start, then completes once the models answer.
func TestAModelOutageWaitContinuesAsNew(t *testing.T) {
	for _, graph := range []bool{false, true} {
		var seen signals.Status
		h, _, _, _, _ := modelOutageRun(t, graph, time.Hour, nil, func(h *harness) {
			h.env.RegisterDelayedCallback(func() { seen = h.status() }, time.Minute-time.Second)
			h.suggestWhileWaiting()
		})
		require.Equal(t, signals.PhaseWaitingOutage, seen.Phase, "graph %v", graph)
		next := continuedInput(t, h)
		var notSent bool
		for _, n := range next.Continued.Trace.Nodes {
			notSent = notSent || strings.Contains(n.Error, "not sent: the run continued as new while it waited out an outage of model scripted:test")
		}
		require.True(t, notSent, "graph %v: the request says why it was not sent", graph)
		require.False(t, next.Continued.Outages.IsZero(), "graph %v: the outage's start is carried", graph)

		var later signals.Status
		h2, _, _, res, err := modelOutageRunIn(t, graph, 3*time.Minute, nil, next, func(h *harness) {
			h.env.RegisterDelayedCallback(func() { later = h.status() }, time.Minute)
		})
		require.NoError(t, err, "graph %v", graph)
		require.Equal(t, ResultCompleted, res.Status, "graph %v", graph)
		require.Equal(t, signals.PhaseWaitingOutage, later.Phase, "graph %v: the next generation waits too", graph)
		require.True(t, later.Outage.Since.Equal(seen.Outage.Since), "graph %v: from the outage's first start, so max_wait counts it all", graph)
		require.Nil(t, h2.status().Outage, "graph %v", graph)
	}
}

// A model that stalls on every attempt, its fallback too, is down as one
// that answers 503: the run waits it out and completes.
func TestStalledModelsAreWaitedOut(t *testing.T) {
	spec := echoSpec()
	h := newHarness(t, spec, []activities.ModelReply{{Content: `"done"`}}, okEcho)
	up := h.env.Now().Add(2 * time.Minute)
	stalls := 0
	h.modelFails = func(activities.ModelRequest) error {
		if h.env.Now().Before(up) {
			stalls++
			return temporal.NewNonRetryableApplicationError("stalled: no byte for 60s (stall.first_byte)", activities.ModelStalledError, nil)
		}
		return nil
	}
	res, err := h.run(AgentInput{Agent: "agent", Task: "go"})
	require.NoError(t, err)
	require.Equal(t, ResultCompleted, res.Status)
	require.GreaterOrEqual(t, stalls, 2, "it asked again after waiting")
}
