package testsuite

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// toolArrival is a tool request as the tool server saw it: which call, and
// whether the model's reply was still streaming then.
type toolArrival struct {
	Q         string
	Streaming bool
	At        time.Time
}

// arrivals records the calls of a lookup tool and answers each with
// {"id": <q>}, after work.
type arrivals struct {
	mu    sync.Mutex
	seen  []toolArrival
	model func() *scriptedmodel.Server
	work  time.Duration
}

func (a *arrivals) handle(w http.ResponseWriter, r *http.Request, _ int) {
	var args map[string]any
	_ = json.NewDecoder(r.Body).Decode(&args)
	q, _ := args["q"].(string)
	if q == "" {
		q, _ = args["id"].(string)
	}
	streaming := false
	if m := a.model(); m != nil {
		streaming = m.OpenStreams() > 0
	}
	a.mu.Lock()
	a.seen = append(a.seen, toolArrival{Q: q, Streaming: streaming, At: time.Now()})
	a.mu.Unlock()
	time.Sleep(a.work)
	writeJSON(w, 200, map[string]any{"id": q})
}

func (a *arrivals) list() []toolArrival {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]toolArrival(nil), a.seen...)
}

// streamerYAML is an agent that streams its calls, with a lookup tool at
// url.
func streamerYAML(url, modelExtra string) string {
	return `
model: { base_url: "{{MODEL}}", name: streamer` + modelExtra + ` }
tools:
  - { name: lookup, http: { url: "` + url + `/lookup" }, parameters: { type: object, properties: { q: {type: string}, id: {type: string} } } }
agents:
  - { name: streamer, instructions: Look things up., tools: [lookup], stream_calls: true, policies: { repair: { max_attempts: 0 } } }
`
}

// The model (a scripted test double) streams three calls 700 ms apart: the
// first two, which wait on nothing, reach the tool while the reply still
// streams; the third reads what the first writes, so it starts only when
// the reply has ended and the first has finished. Each runs once, the
// trace marks them streamed, and the recorded history replays.
func TestStreamedCallsStartBeforeTheReplyEnds(t *testing.T) {
	t.Parallel()
	var model *scriptedmodel.Server
	tool := &arrivals{model: func() *scriptedmodel.Server { return model }, work: 300 * time.Millisecond}
	tools := newToolServer(t, tool.handle)
	calls := scriptedmodel.CallsTurn(
		scriptedmodel.NewCall("lookup", map[string]any{"q": "first", "_outputPath": "†state.first"}),
		scriptedmodel.NewCall("lookup", map[string]any{"q": "second"}),
		scriptedmodel.NewCall("lookup", map[string]any{"id": "†state.first.id"}),
	)
	calls.CallDelay = 700 * time.Millisecond
	s := newStack(t, streamerYAML(tools.URL, ""), map[string]scriptedmodel.Script{"streamer": scriptedmodel.Sequence(
		calls,
		scriptedmodel.CallTurn("final_output", map[string]any{"done": true}),
	)})
	model = s.model
	r := s.start(workflows.AgentInput{Agent: "streamer", Task: "look"})
	res, err := s.result(r)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))

	list := tool.list()
	require.Len(t, list, 3, "each call ran once: %+v", list)
	require.Equal(t, []string{"first", "second", "first"}, []string{list[0].Q, list[1].Q, list[2].Q},
		"the third call resolved †state.first.id to the first call's id: %+v", list)
	require.True(t, list[0].Streaming, "the first call started while the reply streamed: %+v", list)
	require.True(t, list[1].Streaming, "the second call started while the reply streamed: %+v", list)
	require.False(t, list[2].Streaming, "a call that reads State waits for the whole reply: %+v", list)
	require.GreaterOrEqual(t, list[2].At.Sub(list[0].At), tool.work, "and for the call whose output it reads")

	tr := s.trace(r)
	var streamed int
	for _, n := range tr.Nodes {
		if n.Kind == signals.KindCall && n.Tool == "lookup" {
			require.Equal(t, signals.StatusCompleted, n.Status, "%+v", n)
			if n.Streamed {
				streamed++
			}
			require.Empty(t, n.Note)
		}
	}
	require.Equal(t, 3, streamed, "all three calls were taken while the reply streamed")
	// The model read one answer per call, in the reply's order.
	reqs := s.model.Requests()
	require.Len(t, reqs, 2)
	var answered []string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			answered = append(answered, m.ToolCallID)
		}
	}
	require.Len(t, answered, 3)
	recordAndReplay(t, r, "stream_calls_early")
}
