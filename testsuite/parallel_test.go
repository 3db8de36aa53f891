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

// interval is when a tool server was busy with one request.
type interval struct{ start, end time.Time }

// A reply of three calls, two independent and a third reading both
// outputs: the two run at the same time, the third after them with the
// references resolved. Errors found before and after running reach the
// next request as {call, error} messages.
func TestParallelCallsWithReferences(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	spans := map[string]interval{}
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		start := time.Now()
		var args map[string]any
		_ = json.NewDecoder(r.Body).Decode(&args)
		switch r.URL.Path {
		case "/slow":
			time.Sleep(500 * time.Millisecond)
			writeJSON(w, 200, map[string]any{"value": args["v"]})
		case "/broken":
			writeJSON(w, 404, map[string]string{"error": "no such booking"})
		default:
			writeJSON(w, 200, map[string]any{"got": args})
		}
		mu.Lock()
		spans[r.URL.Path+":"+stringOf(args["name"])] = interval{start, time.Now()}
		mu.Unlock()
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: parallel }
tools:
  - { name: slow_a, http: { url: "` + tools.URL + `/slow" }, parameters: { type: object, properties: { v: {type: integer}, name: {type: string} } } }
  - { name: slow_b, http: { url: "` + tools.URL + `/slow" }, parameters: { type: object, properties: { v: {type: integer}, name: {type: string} } } }
  - { name: combine, http: { url: "` + tools.URL + `/combine" }, parameters: { type: object, required: [a, b], properties: { a: {type: integer}, b: {type: integer}, name: {type: string} } } }
  - { name: broken, http: { url: "` + tools.URL + `/broken" } }
agents:
  - { name: planner, instructions: Plan., tools: [slow_a, slow_b, combine, broken], policies: { repair: { max_attempts: 0 } } }
`
	script := scriptedmodel.Sequence(
		scriptedmodel.CallsTurn(
			scriptedmodel.NewCall("combine", map[string]any{"a": "†state.a.value", "b": "†state.b.value", "name": "c"}),
			scriptedmodel.NewCall("slow_a", map[string]any{"v": 1, "name": "a", "_outputPath": "†state.a"}),
			scriptedmodel.NewCall("slow_b", map[string]any{"v": 2, "name": "b", "_outputPath": "†state.b"}),
			scriptedmodel.NewCall("combine", map[string]any{"a": "one", "b": 2}),
			scriptedmodel.NewCall("broken", map[string]any{}),
		),
		scriptedmodel.CallTurn("final_output", map[string]any{"sum_inputs": "†state.a.value"}),
	)
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"parallel": script})
	run := s.start(workflows.AgentInput{Agent: "planner", Task: "combine"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"sum_inputs": 1}`, string(res.Output))

	mu.Lock()
	a, b, c := spans["/slow:a"], spans["/slow:b"], spans["/combine:c"]
	mu.Unlock()
	require.True(t, a.start.Before(b.end) && b.start.Before(a.end), "slow_a and slow_b overlap: a=%v b=%v", a, b)
	require.False(t, c.start.Before(a.end) || c.start.Before(b.end), "combine starts after both: a=%v b=%v c=%v", a, b, c)

	tr := s.trace(run)
	calls := nodesOf(tr, signals.KindCall)
	require.JSONEq(t, `{"a":1,"b":2,"name":"c"}`, string(calls[0].Args), "references resolved in the trace")
	require.Len(t, tools.requests("/combine"), 1, "the combine call with a bad type never reached the tool")

	results := scriptedmodel.LastToolResults(s.model.Requests()[1])
	require.Len(t, results, 5)
	for i, want := range []string{"", "", "", "do not match the tool's parameters schema: at /a: got string, want integer", "HTTP 404: no such booking"} {
		if want == "" {
			require.False(t, results[i].IsError(), results[i].Content)
			continue
		}
		var env struct {
			Call  map[string]any `json:"call"`
			Error string         `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(results[i].Content), &env))
		require.Contains(t, env.Error, want)
		require.Equal(t, results[i].Name, env.Call["tool"])
	}
	recordAndReplay(t, run, "parallel_references")
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}
