package testsuite

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Real HTTP tools on loopback: headers, retries of transient failures with
// one idempotency key, the default error classes, timeouts and the result
// size limit, all reaching the model as {call, error} messages.
func TestHTTPToolsClassesHeadersAndLimits(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/flaky":
			if n <= 2 {
				w.Header().Set("Retry-After", "0")
				writeJSON(w, 503, map[string]string{"error": "busy, try later"})
				return
			}
			writeJSON(w, 200, map[string]any{"ok": true, "attempt": n})
		case "/strict":
			writeJSON(w, 422, map[string]string{"error": "invalid date format for 'date'"})
		case "/secret":
			http.Error(w, "no entry", http.StatusUnauthorized)
		case "/slow":
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
			}
			writeJSON(w, 200, map[string]bool{"late": true})
		case "/huge":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`"` + strings.Repeat("x", 2<<20) + `"`))
		}
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: http-tools }
tools:
  - { name: flaky, http: { method: POST, url: "` + tools.URL + `/flaky" }, retry: { initial_interval: 100ms, max_attempts: 5 } }
  - { name: strict, http: { method: POST, url: "` + tools.URL + `/strict" } }
  - { name: secret, http: { method: GET, url: "` + tools.URL + `/secret" } }
  - { name: slow, http: { method: POST, url: "` + tools.URL + `/slow", timeout: 300ms }, retry: { initial_interval: 100ms, max_attempts: 2 } }
  - { name: huge, http: { method: POST, url: "` + tools.URL + `/huge" } }
agents:
  - name: caller
    instructions: Call tools.
    tools: [flaky, strict, secret, slow, huge]
    policies: { repair: { max_attempts: 0 } }   # classes and retries only, no repair
`
	script := scriptedmodel.Sequence(
		scriptedmodel.CallsTurn(
			scriptedmodel.NewCall("flaky", map[string]any{"n": 1}),
			scriptedmodel.NewCall("strict", map[string]any{"date": "Oct 26"}),
			scriptedmodel.NewCall("secret", map[string]any{"x": 1, "who": "me"}),
			scriptedmodel.NewCall("slow", map[string]any{}),
			scriptedmodel.NewCall("huge", map[string]any{}),
		),
		scriptedmodel.CallTurn("final_output", map[string]any{"done": true}),
	)
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"http-tools": script})
	run := s.start(workflows.AgentInput{Agent: "caller", Task: "call everything"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))
	recordAndReplay(t, run, "http_tool_errors")

	// Transient: retried with the same idempotency key, then succeeded.
	flaky := tools.requests("/flaky")
	require.Len(t, flaky, 3)
	require.NotEmpty(t, flaky[0].IdempotencyKey)
	for _, r := range flaky {
		require.Equal(t, flaky[0].IdempotencyKey, r.IdempotencyKey)
		require.Equal(t, run.GetID(), r.WorkflowID)
		require.JSONEq(t, `{"n":1}`, r.Body)
	}
	// invalid_args, fatal and the size limit are not retried; the timeout is,
	// up to its max_attempts.
	require.Len(t, tools.requests("/strict"), 1)
	secret := tools.requests("/secret")
	require.Len(t, secret, 1)
	require.Equal(t, "GET", secret[0].Method)
	require.Equal(t, "who=me&x=1", secret[0].Query)
	require.Len(t, tools.requests("/slow"), 2)
	require.Len(t, tools.requests("/huge"), 1)

	tr := s.trace(run)
	byTool := map[string]signals.Node{}
	for _, n := range nodesOf(tr, signals.KindCall) {
		byTool[n.Tool] = n
	}
	require.Equal(t, signals.StatusCompleted, byTool["flaky"].Status)
	require.JSONEq(t, `{"ok":true,"attempt":3}`, string(byTool["flaky"].Output))
	require.Contains(t, byTool["strict"].Error, "HTTP 422: invalid date format for 'date'")
	require.Contains(t, byTool["secret"].Error, "HTTP 401: no entry")
	require.Contains(t, byTool["slow"].Error, "timed out after 300ms")
	require.Contains(t, byTool["huge"].Error, "over the 1048576-byte (1 MiB) limit")

	// The model's second request holds one message per call, errors in the
	// {call, error} shape.
	reqs := s.model.Requests()
	require.Len(t, reqs, 2)
	results := scriptedmodel.LastToolResults(reqs[1])
	require.Len(t, results, 5)
	for _, r := range results {
		if r.Name == "flaky" {
			require.False(t, r.IsError())
			continue
		}
		var env struct {
			Call struct {
				Tool string          `json:"tool"`
				Args json.RawMessage `json:"args"`
			} `json:"call"`
			Error string `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.Content), &env), r.Content)
		require.Equal(t, r.Name, env.Call.Tool)
		require.NotEmpty(t, env.Error)
	}
}
