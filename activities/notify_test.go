package activities

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

// hookServer is a webhook on loopback that answers each POST with the
// next of its statuses (200 once they are used up), keeping what it got.
type hookServer struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	got      []*http.Request
	bodies   [][]byte
}

func newHookServer(t *testing.T, statuses ...int) *hookServer {
	h := &hookServer{statuses: statuses}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.got, h.bodies = append(h.got, r), append(h.bodies, body)
		status := http.StatusOK
		if len(h.statuses) > 0 {
			status, h.statuses = h.statuses[0], h.statuses[1:]
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(h.Close)
	return h
}

// notifyActivities is an activity set whose config has webhook pager at
// h, with a header naming PAGER_TOKEN, set to s3cret.
func notifyActivities(h *hookServer) *Activities {
	acts := newTestActivities()
	acts.getenv = func(k string) (string, bool) {
		if k == "PAGER_TOKEN" {
			return "s3cret", true
		}
		return "", false
	}
	acts.config.Notify = []config.Webhook{{Name: "pager", URL: h.URL + "/hook?key=k1",
		Headers: map[string]string{"Authorization": "Bearer ${PAGER_TOKEN}"}}}
	return acts
}

var testNotice = NotifyRequest{
	Webhook: "pager", Event: config.NotifyWaiting, Run: "order 7/a", RunID: "r1", Agent: "buyer",
	Node: "n4", Tool: "pay", Since: time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC), Deadline: time.Date(2026, 12, 8, 10, 0, 0, 0, time.UTC),
}

func TestNotifyPostsTheNotice(t *testing.T) {
	h := newHookServer(t)
	acts := notifyActivities(h)
	_, err := newActivityEnv(t, acts).ExecuteActivity(acts.Notify, testNotice)
	require.NoError(t, err)
	require.Len(t, h.got, 1)
	r := h.got[0]
	require.Equal(t, http.MethodPost, r.Method)
	require.Equal(t, "/hook?key=k1", r.URL.RequestURI())
	require.Equal(t, "Bearer s3cret", r.Header.Get("Authorization"), "the header's variable is expanded as the notice is sent")
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	var body map[string]any
	require.NoError(t, json.Unmarshal(h.bodies[0], &body))
	require.Equal(t, map[string]any{
		"webhook": "pager", "event": "waiting", "run": "order 7/a", "run_id": "r1", "agent": "buyer",
		"node": "n4", "tool": "pay", "since": "2026-12-07T10:00:00Z", "deadline": "2026-12-08T10:00:00Z",
		"link": "/runs/order%207%2Fa#node-n4",
	}, body)
}

// A human node has no tool, and a notice without a deadline says none.
func TestNotifyLeavesOutWhatIsNot(t *testing.T) {
	h := newHookServer(t)
	acts := notifyActivities(h)
	req := testNotice
	req.Tool, req.Deadline = "", time.Time{}
	_, err := newActivityEnv(t, acts).ExecuteActivity(acts.Notify, req)
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(h.bodies[0], &body))
	require.NotContains(t, body, "tool")
	require.NotContains(t, body, "deadline")
}

// What a retry may deliver is retried (503, 429, 408, no answer); what it
// cannot is final (400, 404, an unknown webhook, an unset variable), and
// its message shows no secret of the URL.
func TestNotifyFailures(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		retryable bool
	}{
		{"503 is retried", http.StatusServiceUnavailable, true},
		{"429 is retried", http.StatusTooManyRequests, true},
		{"408 is retried", http.StatusRequestTimeout, true},
		{"400 is final", http.StatusBadRequest, false},
		{"404 is final", http.StatusNotFound, false},
		{"a redirect is final, not followed", http.StatusFound, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHookServer(t, tc.status)
			acts := notifyActivities(h)
			env := newActivityEnv(t, acts)
			_, err := env.ExecuteActivity(acts.Notify, testNotice)
			require.Error(t, err)
			require.NotContains(t, err.Error(), "k1", "the URL's query stays out of the message")
			ae := appError(t, err)
			require.Equal(t, !tc.retryable, ae.NonRetryable(), "%v", err)
			if !tc.retryable {
				require.Equal(t, NotifyRefusedError, ae.Type())
				return
			}
			// The next attempt, as Temporal's retry sends it, gets through.
			_, err = env.ExecuteActivity(acts.Notify, testNotice)
			require.NoError(t, err)
			require.Len(t, h.got, 2)
		})
	}
}

func TestNotifyRefusedBeforeSending(t *testing.T) {
	h := newHookServer(t)
	acts := notifyActivities(h)
	acts.getenv = func(string) (string, bool) { return "", false }
	_, err := newActivityEnv(t, acts).ExecuteActivity(acts.Notify, testNotice)
	require.Equal(t, NotifyRefusedError, appError(t, err).Type())
	require.Contains(t, err.Error(), "webhook pager: header Authorization: environment variable PAGER_TOKEN is not set in the worker")

	req := testNotice
	req.Webhook = "elsewhere"
	_, err = newActivityEnv(t, acts).ExecuteActivity(acts.Notify, req)
	require.Equal(t, NotifyRefusedError, appError(t, err).Type())
	require.Contains(t, err.Error(), `webhook "elsewhere" is not in the worker's notify:`)
	require.Empty(t, h.got, "nothing is sent")
}

// A webhook that does not answer is retried.
func TestNotifyNoAnswerIsRetried(t *testing.T) {
	h := newHookServer(t)
	acts := notifyActivities(h)
	h.Close()
	_, err := newActivityEnv(t, acts).ExecuteActivity(acts.Notify, testNotice)
	require.False(t, appError(t, err).NonRetryable(), "%v", err)
	require.Contains(t, err.Error(), "connection failed")
}
