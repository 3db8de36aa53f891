package bench

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// The models of BenchmarkModelOutage: one scripted server (a test
// double) serves both names, so they are two endpoints to the worker (its
// model breakers are one per name and URL).
const (
	modelPrimary  = "mo-primary"
	modelFallback = "mo-backup"
)

// modelRequests is the model requests of a run of BenchmarkModelOutage,
// in either shape: the free-form model looks up one a request, then ends
// with final_output; each of the graph's llm nodes looks up one.
const modelRequests = 3

// graphTask marks the task of the graph runs, whose llm nodes write
// their lookup to state instead of ending with final_output.
const graphTask = "graph: look it up at each node"

// lookupScript (a test double) is both models' script: the free-form run
// looks up 0 .. modelRequests-2, then answers {"looked": modelRequests-1};
// each llm node of the graph looks up the next i into state.out, so the
// graph ends with {"i": modelRequests-1}. The next i is read from the
// last lookup's result, so a request asked again (of the fallback, or
// after a wait) is answered the same.
func lookupScript(req openai.ChatCompletionRequest) scriptedmodel.Turn {
	i := scriptedmodel.NextStep(req)
	switch {
	case scriptedmodel.Task(req) == graphTask:
		return scriptedmodel.CallTurn("lookup", map[string]any{"i": i, "_outputPath": "†state.out"})
	case i < modelRequests-1:
		return scriptedmodel.CallTurn("lookup", map[string]any{"i": i})
	}
	return scriptedmodel.CallTurn("final_output", map[string]any{"looked": i})
}

// lookedUp says whether a run's output is the one its shape must end
// with (lookupScript).
func lookedUp(graph bool, output json.RawMessage) bool {
	key := "looked"
	if graph {
		key = "i"
	}
	var out map[string]int
	return json.Unmarshal(output, &out) == nil && len(out) == 1 && out[key] == modelRequests-1
}

// modelDown is a cell's model outage as the endpoints saw it: every
// request to either model answers 503 from the cell's first request for
// its fault's time (the outage of the booking service, reused for its
// clock), then the script answers. Per model: the requests that arrived
// while it was down, of them those that arrived before that model had
// answered the breaker's threshold of 503s (early: no breaker of the
// worker can have stopped them), and the 503s it answered.
type modelDown struct {
	mu                  sync.Mutex
	clock               outage
	down, early, failed map[string]int
}

func newModelDown(f fault) *modelDown {
	return &modelDown{clock: outage{fault: f}, down: map[string]int{}, early: map[string]int{}, failed: map[string]int{}}
}

// script answers 503 while the models are down, else as next does.
func (m *modelDown) script(next scriptedmodel.Script) scriptedmodel.Script {
	return func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		if !m.arrived(req.Model, time.Now()) {
			return next(req)
		}
		defer m.answered(req.Model)
		return scriptedmodel.Fail(503, "the model is overloaded")
	}
}

// arrived counts a request to model at now and says whether it is down.
func (m *modelDown) arrived(model string, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.clock.downFor == 0 {
		return false
	}
	if m.clock.firstAt.IsZero() {
		m.clock.firstAt, m.clock.upAt = now, now.Add(m.clock.span())
	}
	if !m.clock.downAt(now) {
		return false
	}
	m.down[model]++
	if m.failed[model] < config.DefaultFailures {
		m.early[model]++
	}
	return true
}

// answered counts a 503 of model's (the script's answer is written right
// after it returns).
func (m *modelDown) answered(model string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failed[model]++
}

// bound is what the worker's breaker of each model lets through while
// it is down, summed over both: the early requests, then one trial a
// cooldown from the first request until the models are up or the cell
// ended.
func (m *modelDown) bound(ended time.Time) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	trials := int(minTime(m.clock.upAt, ended).Sub(m.clock.firstAt) / config.DefaultCooldown.D())
	return m.early[modelPrimary] + m.early[modelFallback] + 2*trials
}

// split is the requests each model got while down, "primary / fallback".
func (m *modelDown) split() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprintf("%d / %d", m.down[modelPrimary], m.down[modelFallback])
}
