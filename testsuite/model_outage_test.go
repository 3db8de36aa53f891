package testsuite

import (
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A fleet of runs whose model and its fallback are both down for a while,
// with default policies, waits the outage out and finishes by itself once
// the provider is back: each run parks in phase waiting_outage (no person
// asked, no step spent), asks again when the model's breaker would let a
// trial through, and completes. Both shapes, on a worker binary of their
// own, against a scripted model (a test double) that answers 503 to both
// model names for modelOutageFor from its first request.

// modelOutageRuns is how many runs of each shape go at once: more than
// the worker's breaker of a model takes to open (five unavailable
// attempts in a row).
const modelOutageRuns = 6

// modelOutageFor is how long both models are down from the first
// request: shorter than the model breaker's cooldown (30 s), so the runs
// are parked when it comes back.
const modelOutageFor = 10 * time.Second

var modelOutageConfig = `
model: { base_url: "{{MODEL}}", name: mdown, fallbacks: [ { name: mdown_fb } ] }
tools:
  - { name: note, builtin: echo, parameters: { type: object } }
agents:
` + twinsWalking("noter", "instructions: Note it., tools: [note]", llmOnce)

// downModels is the scripted provider: every request to either model is
// answered 503 until modelOutageFor after the first; then a model calls
// note once and gives its answer as the output. It counts the requests
// each model got while down.
type downModels struct {
	mu        sync.Mutex
	upAt      time.Time
	whileDown map[string]int
}

func (d *downModels) script(name string) scriptedmodel.Script {
	return func(req openaiRequest) scriptedmodel.Turn {
		d.mu.Lock()
		now := time.Now()
		if d.upAt.IsZero() {
			d.upAt = now.Add(modelOutageFor)
		}
		down := now.Before(d.upAt)
		if down {
			d.whileDown[name]++
		}
		d.mu.Unlock()
		if down {
			return scriptedmodel.Turn{Status: http.StatusServiceUnavailable, Message: "the provider is down"}
		}
		if res := scriptedmodel.LastToolResults(req); len(res) == 1 {
			return scriptedmodel.CallsTurn(scriptedmodel.Call{Name: "final_output", Args: res[0].Content})
		}
		return scriptedmodel.CallTurn("note", map[string]any{"said": "noted"})
	}
}

func TestAModelOutageIsWaitedOut(t *testing.T) {
	t.Parallel()
	waitOutAModelOutage(t, freeForm)
}

func TestAModelOutageIsWaitedOutInAGraph(t *testing.T) {
	t.Parallel()
	waitOutAModelOutage(t, graph)
}

func waitOutAModelOutage(t *testing.T, shape string) {
	d := &downModels{whileDown: map[string]int{}}
	s := newBinaryStack(t, modelOutageConfig, map[string]scriptedmodel.Script{"mdown": d.script("mdown"), "mdown_fb": d.script("mdown_fb")})
	runs := make([]client.WorkflowRun, modelOutageRuns)
	for i := range runs {
		runs[i] = s.start(workflows.AgentInput{Agent: shape + "-noter", Task: "note it"})
	}
	ends := awaitEnds(runs)
	for _, e := range ends {
		<-e.done
	}
	d.mu.Lock()
	upAt, whileDown := d.upAt, maps.Clone(d.whileDown)
	d.mu.Unlock()
	t.Logf("%s: requests while the models were down: %v", shape, whileDown)
	// The worker's breaker of each model lets through the attempts it
	// admits before it has counted config.DefaultFailures of them (with
	// every run asking at once, each run's first may be in flight), then
	// one trial a cooldown, none of which comes within an outage shorter
	// than the cooldown; parked runs ask nothing.
	for name, n := range whileDown {
		require.LessOrEqual(t, n, config.DefaultFailures+modelOutageRuns, "%s: requests to %s while it was down", shape, name)
	}
	for i, run := range runs {
		id := run.GetID()
		e := ends[i]
		require.NoError(t, e.err, "%s: the run completes by itself", id)
		require.Equal(t, workflows.ResultCompleted, e.res.Status, id)
		if shape == freeForm { // a graph's output is its end node's (here the State, which llm nodes leave)
			require.JSONEq(t, `{"said": "noted"}`, string(e.res.Output), "%s: the output the model gave once it was back", id)
		}
		require.Empty(t, e.res.Escalations, "%s: an outage climbs no rung", id)
		phases := phasesShown(t, run)
		require.Contains(t, phases, signals.PhaseWaitingOutage, "%s: the run waited the outage out", id)
		require.NotContains(t, phases, signals.PhaseAwaitingHuman, "%s: no person was asked", id)
		require.False(t, e.closed.After(upAt.Add(60*time.Second)), "%s closed at %s, more than the cooldown and 30 s after the models came back (%s)",
			id, e.closed.Format(time.RFC3339Nano), upAt.Format(time.RFC3339Nano))
		waited := false
		for _, n := range s.trace(run).Nodes {
			waited = waited || (n.Kind == signals.KindRequest && strings.Contains(n.Note, "waited out an outage of model mdown"))
		}
		require.True(t, waited, "%s: the request says it waited the outage out", id)
	}
	recordAndReplay(t, runs[0], "model_outage_waited_out_"+strings.ReplaceAll(shape, "-", "_"))
}
