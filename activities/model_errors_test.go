package activities

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name  string
		value string
		want  time.Duration
	}{
		{"empty", "", 0},
		{"seconds", "5", 5 * time.Second},
		{"zero seconds", "0", 0},
		{"many seconds", "300", 5 * time.Minute},
		{"capped", "3600", MaxRetryAfter},
		{"overflowing", "9223372037", MaxRetryAfter},
		{"negative seconds", "-3", 0},
		{"fractional seconds", "1.5", 0},
		{"HTTP date in the future", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"RFC 850 date", now.Add(time.Minute).Format(time.RFC850), time.Minute},
		{"ANSI C date", now.Add(2 * time.Minute).Format(time.ANSIC), 2 * time.Minute},
		{"HTTP date now", now.Format(http.TimeFormat), 0},
		{"HTTP date in the past", now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"garbage", "soon", 0},
		{"seconds with a unit", "5s", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, parseRetryAfter(tc.value, now))
		})
	}
}

// modelError: no HTTP answer, 408, 409, 429 and 5xx are retryable
// ModelUnavailable; any other status is a non-retryable ModelRejected.
func TestModelErrorClasses(t *testing.T) {
	m := config.Model{Name: "gpt", BaseURL: "http://127.0.0.1:1/v1"}
	cases := []struct {
		err       error
		retryable bool
	}{
		{errors.New("dial tcp: connection refused"), true},
		{&openai.APIError{HTTPStatusCode: 408, Message: "timeout"}, true},
		{&openai.APIError{HTTPStatusCode: 409, Message: "conflict"}, true},
		{&openai.APIError{HTTPStatusCode: 429, Message: "rate"}, true},
		{&openai.APIError{HTTPStatusCode: 500, Message: "oops"}, true},
		{&openai.APIError{HTTPStatusCode: 529, Message: "overloaded"}, true},
		{&openai.RequestError{HTTPStatusCode: 502, Err: errors.New("bad gateway")}, true},
		{&openai.APIError{HTTPStatusCode: 400, Message: "bad"}, false},
		{&openai.APIError{HTTPStatusCode: 401, Message: "key"}, false},
		{&openai.APIError{HTTPStatusCode: 403, Message: "forbidden"}, false},
		{&openai.APIError{HTTPStatusCode: 404, Message: "model"}, false},
		{&openai.RequestError{HTTPStatusCode: 422, Err: errors.New("unprocessable")}, false},
	}
	for _, tc := range cases {
		t.Run(tc.err.Error(), func(t *testing.T) {
			wrapped := fmt.Errorf("create: %w", tc.err)
			typ := ModelRejectedError
			if tc.retryable {
				typ = ModelUnavailableError
			}
			ae := requireClass(t, modelError(m, wrapped, 4*time.Second), typ, tc.retryable)
			require.Contains(t, ae.Error(), `model "gpt" at http://127.0.0.1:1/v1`)
			if tc.retryable {
				require.Equal(t, 4*time.Second, ae.NextRetryDelay())
			}
		})
	}
}

// headerCapture remembers the Retry-After of the last response it saw.
func TestHeaderCaptureKeepsTheLastRetryAfter(t *testing.T) {
	ts := newToolServer(t, func(w http.ResponseWriter, r *http.Request) {
		if v := r.URL.Query().Get("ra"); v != "" {
			w.Header().Set("Retry-After", v)
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	hc := &headerCapture{base: http.DefaultTransport}
	client := &http.Client{Transport: hc}
	get := func(q string) {
		resp, err := client.Get(ts.URL + q)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
	}
	require.Zero(t, hc.retryAfter())
	get("?ra=12")
	require.Equal(t, 12*time.Second, hc.retryAfter())
	get("")
	require.Zero(t, hc.retryAfter(), "a later response without the header clears it")
}

// KNOWN BUG (activities/model_errors.go, modelError): a provider error
// whose body is not OpenAI JSON (a proxy's 502 page, say) becomes a
// go-openai RequestError whose text holds the whole raw body, so the
// failure message is unbounded and may be invalid UTF-8, which the
// Temporal server cannot be sent (protobuf strings). HTTP tools bound
// their error text (maxErrorText) and repair it (classed); model errors
// should too. Remove the Skip once modelError shortens and repairs msg.
func TestCallModelErrorMessageIsBoundedAndValidUTF8(t *testing.T) {
	proxy := newToolServer(t, answer(http.StatusBadGateway, "<html>"+strings.Repeat("passerelle d\xe9faillante ", 10000)+"</html>"))
	acts := newTestActivities()
	acts.convos.put(testWorkflowID, testRunID, ModelContext{}, "") // a cache hit: no query
	acts.config.Model = config.Model{BaseURL: proxy.URL + "/v1", Name: "gpt"}
	acts.config.Agents = []config.Agent{{Name: "a"}}
	env := newActivityEnv(t, acts)
	_, err := env.ExecuteActivity(acts.CallModel, ModelRequest{Agent: "a"})
	ae := requireClass(t, err, ModelUnavailableError, true)
	require.True(t, utf8.ValidString(ae.Error()), "the message must be valid UTF-8")
	require.Less(t, len(ae.Message()), 4*maxErrorText, "the message must be bounded")
}

// A model endpoint's query string or userinfo (where a key may hide) never
// reaches an error message: those go into the run's history.
func TestModelErrorsHoldNoEndpointSecret(t *testing.T) {
	acts := newTestActivities()
	acts.config.Model = config.Model{BaseURL: "http://user:pw-s3cret@" + refusedAddr(t) + "/v1?key=s3cret", Name: "gpt"}
	acts.config.Agents = []config.Agent{{Name: "a"}}
	acts.convos.put(testWorkflowID, testRunID, ModelContext{}, "")
	env := newActivityEnv(t, acts)
	_, err := env.ExecuteActivity(acts.CallModel, ModelRequest{Agent: "a"})
	ae := requireClass(t, err, ModelUnavailableError, true)
	require.Contains(t, ae.Message(), `model "gpt" at http://`)
	require.NotContains(t, ae.Error(), "s3cret")
	require.NotContains(t, ae.Error(), "key=")
}
