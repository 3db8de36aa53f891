package activities

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

// A tool answering a redirect is not followed: the call's body and
// headers never reach the other server, and the reply is a persistent
// error naming the status and where it pointed.
func TestHTTPToolRefusesRedirects(t *testing.T) {
	for _, status := range []int{301, 302, 303, 307, 308} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			elsewhere := newToolServer(t, answer(200, `{"hijacked":true}`))
			ts := newToolServer(t, answer(status, "moved", "Location", elsewhere.URL+"/steal"))
			tool := httpTool("book", "POST", ts.URL+"/book")
			tool.HTTP.Headers = map[string]string{"Authorization": "Bearer ${TOKEN}"}
			_, err := runToolWithEnv(t, toolCase{CallID: "n1", Tool: tool, Args: json.RawMessage(`{"card":"4111"}`)}, "TOKEN", "s3cret")
			ae := requireClass(t, err, "persistent", false)
			require.Equal(t, fmt.Sprintf("tool book: HTTP %d: redirect to %s/steal refused (tools must answer directly)", status, elsewhere.URL), ae.Message())
			require.Len(t, ts.requests(), 1)
			require.Empty(t, elsewhere.requests(), "the redirect was followed")
		})
	}
}

// The tool's error rules still apply first to a redirect.
func TestHTTPToolRedirectRules(t *testing.T) {
	cases := []struct {
		name      string
		rules     []config.ErrorRule
		class     string
		retryable bool
	}{
		{"no rule", nil, "persistent", false},
		{"status rule", []config.ErrorRule{{Status: 302, Class: "transient"}}, "transient", true},
		{"message rule", []config.ErrorRule{{Message: "redirect to .* refused", Class: "fatal"}}, "fatal", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts := newToolServer(t, answer(http.StatusFound, "", "Location", "http://127.0.0.1:1/x"))
			tool := httpTool("t", "GET", ts.URL)
			tool.Errors = tc.rules
			_, err := runTool(t, toolCase{CallID: "n1", Tool: tool, Args: json.RawMessage(`{}`)})
			requireClass(t, err, tc.class, tc.retryable)
		})
	}
}
