package activities

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"

	"github.com/unstuck-dev/unstuck/config"
)

// Every non-2xx status gets its docs/contract.md default class; only transient
// ones are retryable.
func TestHTTPToolErrorDefaultClasses(t *testing.T) {
	cases := []struct {
		status    int
		class     string
		retryable bool
	}{
		{408, "transient", true},
		{425, "transient", true},
		{429, "transient", true},
		{500, "transient", true},
		{502, "transient", true},
		{503, "transient", true},
		{504, "transient", true},
		{400, "invalid_args", false},
		{422, "invalid_args", false},
		{401, "fatal", false},
		{403, "fatal", false},
		{404, "persistent", false},
		{405, "persistent", false},
		{409, "persistent", false},
		{410, "persistent", false},
		{302, "persistent", false}, // a redirect without Location is not a result
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			ts := newToolServer(t, answer(tc.status, `{"error":"nope"}`, "Content-Type", "application/json"))
			_, err := runTool(t, toolCase{CallID: "n1", Tool: httpTool("t", "POST", ts.URL), Args: json.RawMessage(`{}`)})
			ae := requireClass(t, err, tc.class, tc.retryable)
			require.Contains(t, ae.Error(), fmt.Sprintf("tool t: HTTP %d: nope", tc.status))
		})
	}
}

// The message of an error is the "error" field of a JSON body (a string or
// an object's message), else the body's text.
func TestHTTPToolErrorMessageFromTheBody(t *testing.T) {
	cases := []struct {
		name string
		body string
		want string
	}{
		{"error string", `{"error":"invalid date format for 'date'"}`, "invalid date format for 'date'"},
		{"error object", `{"error":{"message":"flight sold out","code":"sold_out"}}`, "flight sold out"},
		{"error object without message", `{"error":{"code":"sold_out"}}`, `{"code":"sold_out"}`},
		{"error number", `{"error":42}`, `42`},
		{"JSON without error", `{"detail":"bad"}`, `{"detail":"bad"}`},
		{"plain text", "upstream exploded\n", "upstream exploded"},
		{"empty body", ``, "(empty body)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts := newToolServer(t, answer(422, tc.body))
			_, err := runTool(t, toolCase{CallID: "n1", Tool: httpTool("book", "POST", ts.URL), Args: json.RawMessage(`{}`)})
			ae := requireClass(t, err, "invalid_args", false)
			require.Equal(t, "tool book: HTTP 422: "+tc.want, ae.Message())
		})
	}
}

func TestErrorTextShortensLongBodies(t *testing.T) {
	long := strings.Repeat("a", 5000)
	got := errorText([]byte(long))
	require.Equal(t, strings.Repeat("a", maxErrorText)+"…", got)
	got = errorText([]byte(`{"error":"` + long + `"}`))
	require.Equal(t, strings.Repeat("a", maxErrorText)+"…", got)
	require.Equal(t, "short", errorText([]byte("  short  ")))
}

// An error message must be valid UTF-8, or the failure cannot be sent to
// the Temporal server (protobuf strings): a body cut inside a character,
// or one that is not UTF-8 at all, is repaired.
func TestHTTPToolErrorMessageIsValidUTF8(t *testing.T) {
	for name, body := range map[string]string{
		"multibyte text cut at the limit": strings.Repeat("€", 1000),
		"multibyte JSON error cut":        `{"error":"` + strings.Repeat("日本", 600) + `"}`,
		"latin-1 body":                    "r\xe9servation refus\xe9e",
	} {
		t.Run(name, func(t *testing.T) {
			ts := newToolServer(t, answer(404, body))
			_, err := runTool(t, toolCase{CallID: "n1", Tool: httpTool("t", "POST", ts.URL), Args: json.RawMessage(`{}`)})
			ae := requireClass(t, err, "persistent", false)
			require.True(t, utf8.ValidString(ae.Error()), "%q", ae.Error())
			f := temporal.GetDefaultFailureConverter().ErrorToFailure(ae)
			_, perr := proto.Marshal(f)
			require.NoError(t, perr, "the failure must be sendable")
		})
	}
}

// A tool's errors: rules override the default class, first match first.
func TestHTTPToolErrorRulesOverrideTheDefault(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		body      string
		rules     []config.ErrorRule
		class     string
		retryable bool
	}{
		{"429 made persistent", 429, `{"error":"monthly quota exhausted"}`,
			[]config.ErrorRule{{Status: 429, Class: "persistent"}}, "persistent", false},
		{"500 with a date message made invalid_args", 500, `{"error":"Invalid date: 2024-13-01"}`,
			[]config.ErrorRule{{Message: "(?i)invalid date", Class: "invalid_args"}}, "invalid_args", false},
		{"404 made transient", 404, `not yet indexed`,
			[]config.ErrorRule{{Status: 404, Message: "not yet", Class: "transient"}}, "transient", true},
		{"non-matching rule keeps the default", 503, `{"error":"maintenance"}`,
			[]config.ErrorRule{{Status: 503, Message: "quota", Class: "fatal"}}, "transient", true},
		{"first match wins", 400, `{"error":"bad seat"}`,
			[]config.ErrorRule{{Message: "seat", Class: "persistent"}, {Status: 400, Class: "fatal"}}, "persistent", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts := newToolServer(t, answer(tc.status, tc.body))
			tool := httpTool("t", "POST", ts.URL)
			tool.Errors = tc.rules
			_, err := runTool(t, toolCase{CallID: "n1", Tool: tool, Args: json.RawMessage(`{}`)})
			requireClass(t, err, tc.class, tc.retryable)
		})
	}
}

// Retry-After (seconds or an HTTP date) becomes the delay before
// Temporal's next attempt.
func TestHTTPToolRetryAfterIsTheNextRetryDelay(t *testing.T) {
	t.Run("429 seconds", func(t *testing.T) {
		ts := newToolServer(t, answer(429, `{"error":"slow down"}`, "Retry-After", "7"))
		_, err := runTool(t, toolCase{CallID: "n1", Tool: httpTool("t", "POST", ts.URL), Args: json.RawMessage(`{}`)})
		ae := requireClass(t, err, "transient", true)
		require.Equal(t, 7*time.Second, ae.NextRetryDelay())
	})
	t.Run("503 HTTP date", func(t *testing.T) {
		when := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
		ts := newToolServer(t, answer(503, `busy`, "Retry-After", when))
		_, err := runTool(t, toolCase{CallID: "n1", Tool: httpTool("t", "POST", ts.URL), Args: json.RawMessage(`{}`)})
		ae := requireClass(t, err, "transient", true)
		require.InDelta(t, float64(30*time.Second), float64(ae.NextRetryDelay()), float64(2*time.Second))
	})
	t.Run("no header: the policy's backoff", func(t *testing.T) {
		ts := newToolServer(t, answer(503, `busy`))
		_, err := runTool(t, toolCase{CallID: "n1", Tool: httpTool("t", "POST", ts.URL), Args: json.RawMessage(`{}`)})
		ae := requireClass(t, err, "transient", true)
		require.Zero(t, ae.NextRetryDelay())
	})
	t.Run("garbage header: the policy's backoff", func(t *testing.T) {
		ts := newToolServer(t, answer(429, `busy`, "Retry-After", "soon"))
		_, err := runTool(t, toolCase{CallID: "n1", Tool: httpTool("t", "POST", ts.URL), Args: json.RawMessage(`{}`)})
		ae := requireClass(t, err, "transient", true)
		require.Zero(t, ae.NextRetryDelay())
	})
}

// A tool slower than its timeout is a transient failure saying so.
func TestHTTPToolTimeoutIsTransient(t *testing.T) {
	ts := newToolServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	tool := httpTool("slow", "POST", ts.URL)
	tool.HTTP.Timeout = config.Duration(150 * time.Millisecond)
	start := time.Now()
	_, err := runTool(t, toolCase{CallID: "n1", Tool: tool, Args: json.RawMessage(`{}`)})
	require.Less(t, time.Since(start), 3*time.Second)
	ae := requireClass(t, err, "transient", true)
	require.Contains(t, ae.Error(), "timed out after 150ms")
}

// A tool nobody listens for is a transient connection failure.
func TestHTTPToolConnectionRefusedIsTransient(t *testing.T) {
	tool := httpTool("gone", "POST", "http://"+refusedAddr(t)+"/x")
	_, err := runTool(t, toolCase{CallID: "n1", Tool: tool, Args: json.RawMessage(`{}`)})
	ae := requireClass(t, err, "transient", true)
	require.Contains(t, ae.Error(), "connection failed")
	require.Contains(t, ae.Error(), "tool gone: POST http://")
}

// Rules apply to transport failures too (status 0, the error text).
func TestHTTPToolRuleOnATransportFailure(t *testing.T) {
	tool := httpTool("gone", "POST", "http://"+refusedAddr(t)+"/x")
	tool.Errors = []config.ErrorRule{{Message: "connection refused", Class: "fatal"}}
	_, err := runTool(t, toolCase{CallID: "n1", Tool: tool, Args: json.RawMessage(`{}`)})
	requireClass(t, err, "fatal", false)
}
