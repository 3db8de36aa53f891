package testsuite

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// receivedNotice is a POST the webhook got.
type receivedNotice struct {
	auth string
	body map[string]any
}

// A run waiting for approval calls its webhook, a real HTTP receiver on
// loopback: the first POST answered 503 is retried, and the receiver
// gets `waiting` for the call waiting, with the link to it on the
// console's run page and the header's variable expanded by the worker.
// The approval then completes the run. Not parallel: the test sets the
// worker's environment.
func TestAWaitForApprovalCallsTheWebhook(t *testing.T) {
	t.Setenv("UNSTUCK_TEST_PAGER_TOKEN", "s3cret")
	var mu sync.Mutex
	var got []receivedNotice
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		mu.Lock()
		defer mu.Unlock()
		got = append(got, receivedNotice{auth: r.Header.Get("Authorization"), body: body})
		if len(got) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(hook.Close)
	tools := newBookingServer(t, "booked")
	cfg := `
model: { base_url: "{{MODEL}}", name: notify }
tools:` + bookToolYAML(tools.URL) + `
agents:
  - { name: booker, instructions: Book., tools: [book] }
notify:
  - { name: pager, url: "` + hook.URL + `/unstuck", headers: { Authorization: "Bearer ${UNSTUCK_TEST_PAGER_TOKEN}" }, on: [waiting] }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"notify": scriptedmodel.Sequence(
		scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"}),
		scriptedmodel.CallTurn("final_output", map[string]any{"done": true}),
	)})
	run := s.start(workflows.AgentInput{Agent: "booker", Task: "book a seat"})
	call := s.pendingApproval(run).CallID

	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= 2
	}, 30*time.Second, 100*time.Millisecond, "the webhook is called again after its 503")
	mu.Lock()
	delivered := got[1]
	require.Equal(t, got[0], delivered, "the retry sends the same notice")
	mu.Unlock()
	require.Equal(t, "Bearer s3cret", delivered.auth)
	require.Equal(t, "pager", delivered.body["webhook"])
	require.Equal(t, "waiting", delivered.body["event"])
	require.Equal(t, run.GetID(), delivered.body["run"])
	require.Equal(t, "booker", delivered.body["agent"])
	require.Equal(t, call, delivered.body["node"])
	require.Equal(t, "book", delivered.body["tool"])
	require.Equal(t, "/runs/"+url.PathEscape(run.GetID())+"#node-"+call, delivered.body["link"])
	since, err := time.Parse(time.RFC3339Nano, delivered.body["since"].(string))
	require.NoError(t, err)
	deadline, err := time.Parse(time.RFC3339Nano, delivered.body["deadline"].(string))
	require.NoError(t, err)
	require.Equal(t, 24*time.Hour, deadline.Sub(since), "the default human_timeout")

	require.NoError(t, s.update(run, signals.Approve, signals.ApproveRequest{CallID: call, Decision: "approve", Audit: signals.Audit{By: "ops"}}))
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))
	require.Len(t, tools.requests("/book"), 1)
	mu.Lock()
	require.Len(t, got, 2, "only waiting was asked for")
	mu.Unlock()
	recordAndReplay(t, run, "approval_notified")
}
